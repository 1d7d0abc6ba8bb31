import type { CaseResult } from "../../core/judge-protocol";
import type { VerdictRule } from "./model/package-model";
import type { VerifiedSubmission } from "./package-verification.entity";

/**
 * Whether a judged record meets what its package says of it (docs/problem-packages.md "Verification"): each
 * rule's cases have only permitted verdicts and one required verdict, the score in its range; and a reason
 * that says which case decided it, in words a teacher can check against the package.
 */

export interface JudgedRecord {
  state: string;
  score: number;
  cases: { state: CaseResult | string }[];
}

export interface Verdict {
  /** accepted, or the first verdict that was not; null while judging or when not judged. */
  actual: string | null;
  /** null: not judged, being judged, or the judge itself failed (nothing said about the package). */
  matches: boolean | null;
  reason: string;
}

const FINAL = new Set(["accepted", "rejected", "failed", "compile_error"]);
/** Cases never run (a subtask skipped) say nothing of the program; a pending one is not judged yet. */
const NOT_RUN = new Set(["canceled", "etc"]);

export function judgeSubmission(
  submission: Pick<VerifiedSubmission, "expected" | "rules" | "score" | "skipped" | "record">,
  record: JudgedRecord | undefined,
  context: { casePaths: string[]; fullScore: number },
): Verdict {
  if (submission.skipped) return { actual: null, matches: null, reason: `not judged: ${submission.skipped}` };
  if (!record) return { actual: null, matches: null, reason: "not judged: its record is gone" };
  if (!FINAL.has(record.state)) return { actual: null, matches: null, reason: `being judged (${record.state})` };
  if (record.state === "compile_error")
    return { actual: "compile_error", matches: false, reason: "it did not compile, which no folder or tag expects" };
  const states = record.cases.map((c) => c.state);
  const actual = states.find((s) => s !== "accepted") ?? "accepted";
  const named = (i: number) => `case ${i + 1}${context.casePaths[i] ? ` (${context.casePaths[i]})` : ""}`;
  const broken = states.indexOf("system_error");
  if (record.state === "failed" || broken >= 0)
    return {
      actual,
      matches: null,
      reason: `the judge failed${broken >= 0 ? ` on ${named(broken)}` : ""}: this says nothing of the submission`,
    };
  for (const rule of submission.rules) {
    const covered = (rule.cases ?? states.map((_, i) => i)).filter((i) => i < states.length && !NOT_RUN.has(states[i]));
    const refused = covered.find((i) => rule.permitted.length > 0 && !rule.permitted.includes(states[i] as CaseResult));
    if (refused !== undefined)
      return {
        actual,
        matches: false,
        reason: `${named(refused)} ${states[refused]}, which ${rule.source} does not permit (${describe(rule)})`,
      };
    if (rule.required.length > 0 && !covered.some((i) => rule.required.includes(states[i] as CaseResult)))
      return {
        actual,
        matches: false,
        reason: `no ${rule.cases ? "covered " : ""}case ${rule.required.join(" or ")}, as ${rule.source} requires`,
      };
  }
  const score = submission.score;
  if (score === "partial" && !(record.score > 0 && record.score < context.fullScore))
    return {
      actual,
      matches: false,
      reason: `score ${record.score} of ${context.fullScore}, where ${submission.expected} means a partial one`,
    };
  if (score && score !== "partial" && !(record.score >= score.min && record.score <= score.max))
    return {
      actual,
      matches: false,
      reason: `score ${record.score}, outside ${score.min === score.max ? score.min : `${score.min}–${score.max}`}`,
    };
  if (submission.rules.length === 0 && !score)
    return { actual, matches: null, reason: `judged ${actual}: the package says nothing it must earn` };
  const decided = states.findIndex((s) => s !== "accepted");
  const what = decided < 0 ? "every case accepted" : `${named(decided)} ${states[decided]}`;
  const rules = submission.rules.map((r) => `${r.source} (${describe(r)})`);
  return { actual, matches: true, reason: `${what}: meets ${[...rules, ...scoreWords(score)].join("; ")}` };
}

const describe = (rule: VerdictRule) =>
  [
    rule.permitted.length > 0 ? `permits ${rule.permitted.join(", ")}` : "permits any verdict",
    ...(rule.required.length > 0 ? [`requires ${rule.required.join(" or ")}`] : []),
    ...(rule.cases ? [`on ${rule.cases.length} cases`] : []),
  ].join(", ");

const scoreWords = (score: VerifiedSubmission["score"]) =>
  !score ? [] : score === "partial" ? ["a partial score"] : [`score ${score.min}–${score.max}`];
