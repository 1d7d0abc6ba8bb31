import type { EntityManager } from "@mikro-orm/postgresql";
import { basename, extname } from "node:path";
import { PRESET_NAMES, PRESETS } from "../../core/config-model/presets";
import type { Config } from "../../settings/config";
import { BizError } from "../../core/errors";
import type { Logger } from "../../core/logger";
import type { JobClient } from "../../jobs/job-client";
import type { PackageRead } from "../../jobs/catalogue";
import type { BlobStore } from "../../storage/blob-store";
import { enqueueJudging } from "../judging/tasks/judge-queue";
import type { Problem } from "../problems/problem.entity";
import { JudgeRecord } from "../records/record.entity";
import { submitSolution } from "../submissions/submissions.service";
import { PackageVerification, type VerifiedSubmission } from "./package-verification.entity";

/**
 * The package's own submissions check its import (docs/running-a-course.md "Problem packages"): each is submitted as a
 * record with no committer and no problem set, so it is judged like any submission but is no one's, and
 * never reaches a scoreboard, grades or a similarity report; the verification lists what each was
 * expected to earn and what it got.
 */

/**
 * The preset a submission's file is judged in: the one whose source has its extension (presets.ts), and
 * C++'s other common extensions.
 */
const PRESET_OF: Record<string, string> = {
  ...Object.fromEntries(
    PRESET_NAMES.flatMap((name) => {
      const source = PRESETS[name].source;
      return source ? [[extname(source).toLowerCase(), name]] : [];
    }),
  ),
  ".cc": "cpp",
  ".cxx": "cpp",
};

export async function verifyPackage(
  em: EntityManager,
  deps: { store: BlobStore; jobs: JobClient; config: Config; logger: Logger },
  problem: Problem,
  read: PackageRead,
): Promise<void> {
  const digests = new Map(read.tree.map((f) => [f.path, f.digest]));
  const submissions: VerifiedSubmission[] = [];
  for (const { path, expected } of read.submissions) {
    const language = PRESET_OF[extname(path).toLowerCase()] ?? null;
    if (!language || !read.languages.includes(language)) {
      submissions.push({
        path,
        expected,
        language: null,
        record: null,
        skipped: `no language preset for ${basename(path)}`,
      });
      continue;
    }
    try {
      const bytes = await deps.store.get(digests.get(path)!);
      const target = { domainId: problem.domain.id, problem, set: null, late: false };
      const files = [new File([bytes], basename(path))];
      const record = await submitSolution(em, deps.store, deps.config.submissions, null, target, { language, files });
      const task = { recordId: record.id, domainId: target.domainId, taskId: record.taskId };
      await enqueueJudging(deps.jobs, deps.logger, task);
      submissions.push({ path, expected, language, record: record.id, skipped: null });
    } catch (error) {
      // The problem is imported either way; the verification says what could not be run.
      const why = error instanceof Error ? error.message : String(error);
      submissions.push({ path, expected, language, record: null, skipped: `not submitted: ${why}` });
    }
  }
  em.create(PackageVerification, { problem, format: read.format, submissions });
  await em.flush();
}

/** What a judged record earned, as a package states it: accepted, or its first case that was not. */
function actualOf(record: JudgeRecord | undefined): string | null {
  if (!record) return null;
  if (!["accepted", "rejected", "failed", "compile_error"].includes(record.state)) return null;
  if (record.state === "compile_error") return "compile_error";
  return record.cases.find((c) => c.state !== "accepted")?.state ?? "accepted";
}

export async function verificationView(em: EntityManager, problem: Problem) {
  const verification = await em.findOne(PackageVerification, { problem });
  if (!verification) throw new BizError("Error", "this problem was not imported from a package with submissions");
  const ids = verification.submissions.flatMap((s) => (s.record ? [s.record] : []));
  const records = new Map((await em.find(JudgeRecord, { id: { $in: ids } })).map((r) => [r.id, r]));
  const results = verification.submissions.map((s) => {
    const record = s.record ? records.get(s.record) : undefined;
    const actual = actualOf(record);
    return {
      path: s.path,
      expected: s.expected,
      language: s.language,
      record: s.record,
      state: record?.state ?? null,
      actual,
      matches: actual === null ? null : actual === s.expected,
      skipped: s.skipped,
    };
  });
  const pending = results.filter((r) => r.record && r.actual === null).length;
  return {
    format: verification.format,
    pending,
    mismatches: results.filter((r) => r.matches === false).length,
    count: results.length,
    results,
  };
}
