import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import { stringify } from "csv-stringify/sync";
import { BizError } from "../../core/errors";
import type { JobClient } from "../../jobs/job-client";
import type { DomainAccess } from "../identity/access";
import type { Problem } from "../problems/problem.entity";
import { ProblemSetProblem } from "../problem-sets/problem-set-problem.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { SimilarityReport } from "./similarity-report.entity";
import type { SimilarityRequestInput } from "./similarity.schemas";
import { START_REPORT_SQL } from "./similarity.sql";
import type { ReportOptions, ReportSubmission } from "./similarity.types";

/**
 * Similarity reports as the API serves them (docs/running-a-course.md "Code similarity"): started here, made by the
 * analysis job (similarity.jobs.ts), read from the stored row; a second read costs one row.
 */

/** Starts the problem's report unless one is under way; either way, the report as it now stands. */
export async function requestReport(
  em: EntityManager,
  jobs: JobClient,
  access: DomainAccess,
  problem: Problem,
  input: SimilarityRequestInput,
): Promise<SimilarityReport> {
  const options: ReportOptions = {
    template: input.template ?? null,
    minSimilarity: input.minSimilarity ?? 0,
    which: input.which ?? "latest",
  };
  const started = await em.execute<{ id: string }[]>(START_REPORT_SQL, [
    randomUUID(),
    access.domainId,
    problem.id,
    access.userId,
    JSON.stringify(options),
  ]);
  if (started.length > 0) {
    try {
      const reportId = started[0].id;
      await jobs.enqueue(
        "similarity.report",
        { reportId },
        { queue: "configs", jobId: `similarity-${reportId}-${Date.now()}` },
      );
    } catch (error) {
      await em.nativeUpdate(SimilarityReport, { problem }, { state: "failed", reason: "the job queue is unavailable" });
      throw error;
    }
  }
  return reportOf(em, problem);
}

/** The problem's report, read afresh; none yet is an error that says how to start one. */
export async function reportOf(em: EntityManager, problem: Problem): Promise<SimilarityReport> {
  const report = await em.fork().findOne(SimilarityReport, { problem });
  if (!report) throw new BizError("Error", "this problem has no similarity report yet: POST …/similarity starts one");
  return report;
}

const side = (s: ReportSubmission) => ({ record: s.record, user: s.user, username: s.username });

/** The report as JSON: its pairs without their fragments and sources. */
export function reportView(report: SimilarityReport) {
  const languages = new Map<string, number>();
  for (const s of report.submissions) languages.set(s.grammar, (languages.get(s.grammar) ?? 0) + 1);
  return {
    state: report.state as "queued" | "running" | "done" | "failed",
    reason: report.reason ?? null,
    createdAt: report.createdAt.toISOString(),
    finishedAt: report.finishedAt?.toISOString() ?? null,
    submissions: report.submissions.length,
    language: [...languages].map(([name, submissions]) => ({ name, submissions })),
    pairs: report.pairs.map((pair, index) => ({
      index,
      left: side(report.submissions[pair.left]),
      right: side(report.submissions[pair.right]),
      language: report.submissions[pair.left].grammar,
      similarity: pair.similarity,
      longestFragment: pair.longestFragment,
      overlap: pair.overlap,
    })),
  };
}

/** One pair with both sources and the line ranges they share. */
export function pairView(report: SimilarityReport, index: number) {
  const pair = report.pairs[index];
  if (!pair) throw new BizError("Error", `the report has no pair ${index} (it has ${report.pairs.length})`);
  const withSource = (s: ReportSubmission) => ({ ...side(s), path: s.path, source: s.source });
  return {
    ...reportView({ ...report, pairs: [pair] } as SimilarityReport).pairs[0],
    index,
    left: withSource(report.submissions[pair.left]),
    right: withSource(report.submissions[pair.right]),
    fragments: pair.fragments,
  };
}

/** The pairs as CSV, UTF-8 with a byte-order mark and CRLF lines, like the grades export. */
export function reportCsv(report: SimilarityReport): string {
  const header = [
    "similarity",
    "longest fragment",
    "overlap",
    "language",
    "left user",
    "left record",
    "right user",
    "right record",
  ];
  const rows = reportView(report).pairs.map((p) => [
    p.similarity.toFixed(4),
    p.longestFragment,
    p.overlap,
    p.language,
    p.left.username ?? "",
    p.left.record,
    p.right.username ?? "",
    p.right.record,
  ]);
  return `\uFEFF${stringify([header, ...rows], { escape_formulas: true, record_delimiter: "windows" })}`;
}

/** The set's problems, in the set's order. */
export async function problemsOf(em: EntityManager, set: ProblemSet): Promise<Problem[]> {
  const links = await em.find(
    ProblemSetProblem,
    { problemSet: set },
    { orderBy: { position: "asc" }, populate: ["problem"] },
  );
  return links.map((link) => link.problem);
}

/** Each problem of the set with its report's state (null: none yet) and how many submissions it compares. */
export async function setSummary(em: EntityManager, set: ProblemSet) {
  const problems = await problemsOf(em, set);
  const reports = await em.fork().find(SimilarityReport, { problem: { $in: problems.map((p) => p.id) } });
  const byProblem = new Map(reports.map((r) => [r.problem.id, r]));
  const results = problems.map((problem) => {
    const report = byProblem.get(problem.id);
    return {
      problem: problem.id,
      title: problem.title,
      state: (report?.state ?? null) as "queued" | "running" | "done" | "failed" | null,
      submissions: report?.submissions.length ?? 0,
    };
  });
  return { count: results.length, results };
}
