import type { EntityManager } from "@mikro-orm/postgresql";
import { basename } from "node:path";
import type { Config } from "../../settings/config";
import { BizError } from "../../core/errors";
import type { Logger } from "../../core/logger";
import type { JobClient } from "../../jobs/job-client";
import type { BlobStore } from "../../storage/blob-store";
import { enqueueJudging } from "../judging/tasks/judge-queue";
import type { Problem } from "../problems/problem.entity";
import { JudgeRecord } from "../records/record.entity";
import { submitSolution } from "../submissions/submissions.service";
import { PackageVerification } from "./package-verification.entity";
import type { ImportedProblem } from "./problem-packages.service";
import { judgeSubmission } from "./verification-rules";

/**
 * The package's own submissions check its import (docs/problem-packages.md "Verification"): each is submitted
 * as a record with no committer and no problem set, so it is judged like any submission but is no one's, and
 * never reaches a scoreboard, grades or a similarity report; the verification lists every submission of the
 * package with what it must earn, what it got, and why that matches or not.
 */
export async function verifyPackage(
  em: EntityManager,
  deps: { store: BlobStore; jobs: JobClient; config: Config; logger: Logger },
  { problem, read, verification }: ImportedProblem,
): Promise<void> {
  const digests = new Map(read.tree.map((f) => [f.path, f.digest]));
  const submissions = [...verification.submissions];
  for (const [i, submission] of submissions.entries()) {
    if (submission.skipped || !submission.language) continue;
    try {
      const bytes = await deps.store.get(digests.get(submission.path)!);
      const target = { domainId: problem.domain.id, problem, set: null, late: false };
      const files = [new File([bytes], basename(submission.path))];
      const language = submission.language;
      const record = await submitSolution(em, deps.store, deps.config.submissions, null, target, { language, files });
      const task = { recordId: record.id, domainId: target.domainId, taskId: record.taskId };
      await enqueueJudging(deps.jobs, deps.logger, task);
      submissions[i] = { ...submission, record: record.id };
    } catch (error) {
      // The problem is imported either way; the verification says what could not be run.
      const why = error instanceof Error ? error.message : String(error);
      submissions[i] = { ...submission, skipped: `not submitted: ${why}` };
    }
  }
  verification.submissions = submissions;
  await em.flush();
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
