import type { EntityManager } from "@mikro-orm/postgresql";
import { setImmediate as tick } from "node:timers/promises";
import { uuidArray } from "../../db/addressing";
import type { Logger } from "../../core/logger";
import type { BlobStore } from "../../storage/blob-store";
import { analyse, grammarOf } from "./similarity-engine";
import { SimilarityReport } from "./similarity-report.entity";
import { RECORD_FILES_SQL, submissionsSql } from "./similarity.sql";
import type { ReportSubmission } from "./similarity.types";

/**
 * The analysis job (on the configs queue, never in the API's process): the report's submissions chosen
 * and read, compared (similarity-engine.ts), and stored. It yields to its event loop between steps, so
 * the worker's other jobs and its lock renewals go on; a failure is stored with its reason.
 */

/** The most pairs a report keeps, highest first (a problem of 300 submissions has 44,850). */
export const MAX_PAIRS = 1000;
/** Files larger than this are not source code anyone wrote by hand: left out. */
const MAX_SOURCE_BYTES = 256 * 1024;

export interface SimilarityPayload {
  reportId: string;
}

export async function runSimilarityReport(
  payload: SimilarityPayload,
  ctx: { em: EntityManager; store: BlobStore; logger: Logger },
): Promise<{ pairs: number }> {
  const { em, store, logger } = ctx;
  const report = await em.findOne(SimilarityReport, payload.reportId);
  if (!report || report.state === "done" || report.state === "failed") return { pairs: 0 };
  report.state = "running";
  report.startedAt = new Date();
  await em.flush();
  try {
    const submissions = await chooseSubmissions(em, store, report);
    const index = new Map(submissions.map((s, i) => [s.record, i]));
    const started = performance.now();
    const pairs = await analyse(
      submissions.map((s) => ({ key: s.record, text: s.source, grammar: s.grammar })),
      {
        template: report.options.template ?? undefined,
        minSimilarity: report.options.minSimilarity,
        maxPairs: MAX_PAIRS,
        pause: () => tick(),
      },
    );
    report.submissions = submissions;
    report.pairs = pairs.map(({ left, right, grammar: _grammar, ...rest }) => ({
      left: index.get(left)!,
      right: index.get(right)!,
      ...rest,
    }));
    report.state = "done";
    report.finishedAt = new Date();
    await em.flush();
    logger.info("similarity report done", {
      reportId: report.id,
      submissions: submissions.length,
      pairs: pairs.length,
      ms: Math.round(performance.now() - started),
    });
    return { pairs: pairs.length };
  } catch (error) {
    // Written by a statement of its own: after a failed flush the unit of work cannot be trusted.
    const reason = error instanceof Error ? error.message : String(error);
    await em.nativeUpdate(SimilarityReport, { id: report.id }, { state: "failed", reason, finishedAt: new Date() });
    logger.warn("similarity report failed", { reportId: report.id, reason });
    return { pairs: 0 };
  }
}

/**
 * Each user's record (latest or best) with its largest source file in a language we can parse; a record
 * whose file holds a NUL byte is left out.
 */
async function chooseSubmissions(
  em: EntityManager,
  store: BlobStore,
  report: SimilarityReport,
): Promise<ReportSubmission[]> {
  const rows = await em.execute<{ id: string; user: string; username: string | null; language: string }[]>(
    submissionsSql(report.options.which),
    [report.domain.id, report.problem.id],
  );
  if (rows.length === 0) return [];
  const files = await em.execute<{ record: string; path: string; digest: string; size: string }[]>(RECORD_FILES_SQL, [
    uuidArray(rows.map((r) => r.id)),
  ]);
  const largest = new Map<string, { path: string; digest: string; size: number }>();
  for (const file of files) {
    const size = Number(file.size);
    if (!grammarOf(file.path) || size > MAX_SOURCE_BYTES) continue;
    const kept = largest.get(file.record);
    if (!kept || size > kept.size) largest.set(file.record, { path: file.path, digest: file.digest, size });
  }
  const submissions: ReportSubmission[] = [];
  for (const row of rows) {
    const file = largest.get(row.id);
    if (!file) continue;
    const bytes = await store.get(file.digest);
    // A NUL byte: no source anyone typed (a binary under a source's name), and no text PostgreSQL stores.
    if (bytes.includes(0)) continue;
    const source = new TextDecoder().decode(bytes);
    const grammar = grammarOf(file.path)!;
    submissions.push({
      record: row.id,
      user: row.user,
      username: row.username,
      language: row.language,
      grammar,
      path: file.path,
      source,
    });
  }
  return submissions;
}
