import { TRANSITIONS } from "../judging/record-transitions";
import type { EntityManager } from "@mikro-orm/postgresql";
import * as metrics from "../../runtime/metrics";
import { randomUUID } from "node:crypto";
import type { SubmissionLimits } from "../../settings/config";
import { BizError } from "../../core/errors";
import { layoutProblem } from "../../core/file-layout";
import type { BlobStore } from "../../storage/blob-store";
import type { Problem } from "../problems/problem.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { ArchiveError, formatBytes, quote, requireFilePath } from "../problem-configs/archive-paths";
import { commitIdOf, type TreeEntry } from "../problem-configs/versions.service";
import type { JudgeRecord } from "../records/record.entity";
import { toRecordView } from "../records/records.service";
import type { RecordView } from "../records/records.schemas";
import { row } from "../../db/statements";
import { LATEST_CONFIG_SQL, submitSql } from "./submissions.sql";
import { sha256Hex } from "../../storage/blob-store";

export interface SubmitTarget {
  domainId: string;
  problem: Problem;
  /** The set submitted through, or null for the problem's own route. */
  set: ProblemSet | null;
  /** Submitted to the set after its due time. */
  late: boolean;
}

const PATH_LIMITS = { maxArchiveBytes: 0, maxTotalBytes: 0, maxFileBytes: 0, maxFiles: 0, maxPathLength: 255 };

/** The files' paths and sizes against the limits, before anything is stored. */
export function checkFiles(files: File[], limits: SubmissionLimits): string[] {
  if (files.length > limits.maxFiles)
    throw new BizError("FileValidationError", `at most ${limits.maxFiles} files per submission, got ${files.length}`);
  let total = 0;
  const paths = files.map((file) => {
    let path: string;
    try {
      path = requireFilePath(file.name || "", PATH_LIMITS);
    } catch (error) {
      if (error instanceof ArchiveError) throw new BizError("FileValidationError", error.message);
      throw error;
    }
    if (file.size > limits.maxFileBytes)
      throw new BizError("FileValidationError", `${quote(path)} is larger than ${formatBytes(limits.maxFileBytes)}`);
    total += file.size;
    return path;
  });
  if (total > limits.maxTotalBytes)
    throw new BizError("FileValidationError", `the files add up to more than ${formatBytes(limits.maxTotalBytes)}`);
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path)) throw new BizError("FileValidationError", `${quote(path)} is sent twice`);
    seen.add(path);
  }
  // The judge lays the files out in one directory: "a" and "a/b" cannot both be there.
  const problem = layoutProblem(paths);
  if (problem) throw new BizError("FileValidationError", `the files cannot be laid out together: ${problem}`);
  return paths;
}

/**
 * The problem's latest config version, which must have the language: what a submission is pinned to and a
 * run is made from. One statement, one snapshot: the latest version and the languages it wrote always agree.
 */
export async function latestVersionFor(em: EntityManager, problemId: string, language: string): Promise<string> {
  const latest = await row<{ config_id: string | null; languages: string[] }>(em, LATEST_CONFIG_SQL, [problemId]);
  if (!latest) throw new BizError("ProblemNotFoundError", "problem not found");
  if (!latest.config_id)
    throw new BizError("ProblemConfigNotFoundError", "the problem has no config yet, so it cannot be judged");
  if (!latest.languages.includes(language)) {
    throw new BizError(
      "UnsupportedLanguageError",
      `language ${quote(language)} is not one of the problem's: ${latest.languages.join(", ") || "(none)"}`,
    );
  }
  return latest.config_id;
}

/** The state a submission is saved in (record-transitions.ts, `submit`). */
const SUBMITTED = TRANSITIONS.submit.to[0];
/** The whole submission in one statement (submissions.sql.ts). */
const SUBMIT_SQL = submitSql(SUBMITTED);

/**
 * Stores a submission: the files as blobs, then, in one statement, the record (state `queueing`,
 * pinned to the problem's latest config version, with a fresh task id), its files and the submit
 * counters. The caller enqueues the task after this returns, i.e. after the commit. The answer is the
 * record's id, task and view.
 */
export async function submitSolution(
  em: EntityManager,
  store: BlobStore,
  limits: SubmissionLimits,
  /** Null: no one's (a package's own submission, run to verify its import). */
  committerId: string | null,
  target: SubmitTarget,
  input: { language: string; files: File[] },
): Promise<{ id: string; taskId: string; view: RecordView }> {
  const paths = checkFiles(input.files, limits);
  const configId = await latestVersionFor(em, target.problem.id, input.language);
  const contents = await Promise.all(input.files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
  const tree: TreeEntry[] = contents.map((data, i) => ({
    path: paths[i],
    digest: sha256Hex(data),
    size: data.byteLength,
  }));
  for (const [i, data] of contents.entries()) await store.put(data, tree[i].digest);
  const blobs = new Map(tree.map((entry) => [entry.digest, entry.size]));
  const [id, taskId, now] = [randomUUID(), randomUUID(), new Date()];
  await row(em, SUBMIT_SQL, [
    [...blobs.keys()],
    [...blobs.values()],
    id,
    now,
    now,
    target.domainId,
    target.set?.id ?? null,
    target.problem.id,
    configId,
    committerId,
    input.language,
    taskId,
    commitIdOf(tree),
    target.late,
    tree.map((e) => e.path),
    tree.map((e) => e.digest),
    tree.map((e) => e.size),
    target.problem.id,
    target.set?.id ?? null,
  ]);
  metrics.submissions.inc();
  // The bytes were written before the ledger rows: a collector that took the same (old, unused) blob
  // in between deleted them, so they are written again; from the commit on the fresh rows keep them.
  for (const [i, data] of contents.entries())
    if (!(await store.has(tree[i].digest))) await store.put(data, tree[i].digest);
  // The view of the row just written, from the values it was written with (mapping a managed entity
  // for the answer alone cost more than the statement): the fields toRecordView reads, as inserted.
  const written = {
    id,
    createdAt: now,
    updatedAt: now,
    domain: { id: target.domainId },
    state: SUBMITTED,
    language: input.language,
    score: 0,
    timeMs: 0,
    memoryKb: 0,
    judgedAt: null,
    late: target.late,
  };
  return { id, taskId, view: toRecordView(written as unknown as JudgeRecord) };
}
