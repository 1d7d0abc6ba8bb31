import type { EntityManager } from "@mikro-orm/postgresql";
import { basename } from "node:path";
import type { Config } from "../../settings/config";
import { BizError } from "../../core/errors";
import type { Logger } from "../../core/logger";
import type { JobClient } from "../../jobs/job-client";
import type { BlobStore } from "../../storage/blob-store";
import { enqueueJudgingBatch, type QueuedTask } from "../judging/tasks/judge-queue";
import type { Problem } from "../problems/problem.entity";
import { JudgeRecord } from "../records/record.entity";
import { submitSolution } from "../submissions/submissions.service";
import { PackageVerification, type VerifiedSubmission } from "./package-verification.entity";
import type { ImportedProblem } from "./problem-packages.service";
import { judgeSubmission } from "./verification-rules";

/**
 * The package's own submissions check its import (docs/problem-packages.md "Verification"): each is submitted
 * as a record with no committer and no problem set, so it is judged like any submission but is no one's, and
 * never reaches a scoreboard, grades or a similarity report; the verification lists every submission of the
 * package with what it must earn, what it got, and why that matches or not. The records of every problem of
 * the package go on the judge queue together, once all are committed (one round trip, not one a record).
 */
export async function verifyPackages(
  em: EntityManager,
  deps: { store: BlobStore; jobs: JobClient; config: Config; logger: Logger },
  imported: ImportedProblem[],
): Promise<void> {
  const tasks: QueuedTask[] = [];
  for (const one of imported) {
    const submissions = await submitAll(em, deps, one, tasks);
    if (submissions === one.verification.submissions) continue;
    one.verification.submissions = submissions;
    // The verification belongs to the entity manager that created it (problem-packages.service.ts).
    await em.nativeUpdate(PackageVerification, { id: one.verification.id }, { submissions });
  }
  await enqueueJudgingBatch(deps.jobs, deps.logger, tasks);
}

/** The problem's submissions as submitted, each with its record or why it was not; the same array if none was. */
async function submitAll(
  em: EntityManager,
  deps: { store: BlobStore; config: Config },
  { problem, read, verification }: ImportedProblem,
  tasks: QueuedTask[],
): Promise<VerifiedSubmission[]> {
  const digests = new Map(read.tree.map((f) => [f.path, f.digest]));
  const submissions = verification.submissions;
  if (!submissions.some((s) => !s.skipped && s.language)) return submissions;
  const submitted: VerifiedSubmission[] = [];
  // One after another: the records are made in the package's order.
  for (const submission of submissions) {
    if (submission.skipped || !submission.language) {
      submitted.push(submission);
      continue;
    }
    try {
      const bytes = await deps.store.get(digests.get(submission.path)!);
      const target = { domainId: problem.domain.id, problem, set: null, late: false };
      const files = [new File([bytes], basename(submission.path))];
      const language = submission.language;
      const record = await submitSolution(em, deps.store, deps.config.submissions, null, target, { language, files });
      tasks.push({ recordId: record.id, domainId: target.domainId, taskId: record.taskId });
      submitted.push({ ...submission, record: record.id });
    } catch (error) {
      // The problem is imported either way; the verification says what could not be run.
      const why = error instanceof Error ? error.message : String(error);
      submitted.push({ ...submission, skipped: `not submitted: ${why}` });
    }
  }
  return submitted;
}

/** The import record of a problem made from a package: its format and what the import said. */
export async function importView(em: EntityManager, problem: Problem) {
  const verification = await em.findOne(PackageVerification, { problem });
  if (!verification) throw new BizError("Error", "this problem was not imported from a package");
  return verification;
}

export async function verificationView(em: EntityManager, problem: Problem) {
  const verification = await importView(em, problem);
  const ids = verification.submissions.flatMap((s) => (s.record ? [s.record] : []));
  const records = new Map((await em.find(JudgeRecord, { id: { $in: ids } })).map((r) => [r.id, r]));
  const context = { casePaths: verification.casePaths, fullScore: verification.fullScore };
  const results = verification.submissions.map((s) => {
    const record = s.record ? records.get(s.record) : undefined;
    return {
      path: s.path,
      expected: s.expected,
      language: s.language,
      record: s.record,
      state: record?.state ?? null,
      score: record && s.record ? record.score : null,
      ...judgeSubmission(s, record, context),
      skipped: s.skipped,
    };
  });
  return {
    format: verification.format,
    notes: verification.notes,
    pending: results.filter((r) => r.record && r.actual === null && r.state !== null).length,
    mismatches: results.filter((r) => r.matches === false).length,
    skipped: results.filter((r) => r.skipped).length,
    count: results.length,
    results,
  };
}
