import { checkSelected, globMatch, type ResolvedStage } from "../../core/config-model/config-stages";
import { STAGE_COMMENTS_MAX, STAGE_MESSAGE_MAX, type StageComment, type StageReport } from "../../core/judge-protocol";
import type { Finding } from "./findings";

/**
 * From a stage's findings to its report (docs/config-reference.md "Stages"): only findings in the submitted
 * files and of the selected checks count; each is worth its points (the tool's own for a command stage, the
 * first matching `deductions` entry, else `deduction`, for a linter); their sum is capped at `maxDeduction`.
 */

/** A finding with its points, and whether it forbids (a keyword rule with `forbid`). */
export interface Scored extends Finding {
  points: number;
  forbids?: boolean;
}

const cut = (text: string, max = STAGE_MESSAGE_MAX) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A linter's points for a finding: the first `deductions` entry whose glob matches, else `deduction` (1). */
export function linterPoints(stage: ResolvedStage, check: string): number {
  const entry = stage.deductions?.find((d) => globMatch(d.check, check));
  return entry ? entry.points : (stage.deduction ?? 1);
}

/**
 * Keeps what counts: a finding in a file of the submission (a header of the problem's, or of the system, is
 * not the student's), of a check the stage selects. Paths are compared as the tool printed them, relative.
 */
export function counted(findings: Finding[], submitted: ReadonlySet<string>, checks?: readonly string[]): Finding[] {
  return findings.filter((f) => submitted.has(f.file.replace(/^(\.\/)+/, "")) && checkSelected(checks, f.check));
}

/** Points as the record stores them: whole, from 0 to a million (a tool's 0.5 is rounded, its 1e9 capped). */
const whole = (points: number) => Math.min(MAX_POINTS, Math.max(0, Math.round(Number.isFinite(points) ? points : 0)));
const MAX_POINTS = 1_000_000;

export function doneReport(stage: ResolvedStage, found: Scored[], note = ""): StageReport {
  const scored = found.map((f) => ({ ...f, points: whole(f.points) }));
  const ordered = [...scored].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const total = ordered.reduce((sum, f) => sum + f.points, 0);
  const deduction = Math.min(total, stage.maxDeduction ?? MAX_POINTS, MAX_POINTS);
  const forbidding = ordered.find((f) => f.forbids);
  const comments: StageComment[] = ordered.slice(0, STAGE_COMMENTS_MAX).map((f) => ({
    file: cut(f.file, 255),
    line: Math.max(0, Math.min(2_147_483_647, Math.trunc(f.line))),
    check: cut(f.check, 128),
    message: cut(f.message),
    points: f.points,
  }));
  const parts = [
    forbidding
      ? `forbidden: ${forbidding.message} (${forbidding.file}:${forbidding.line}); the score is 0`
      : `${ordered.length} finding${ordered.length === 1 ? "" : "s"}, ` +
        `${deduction} point${deduction === 1 ? "" : "s"} off`,
    total > deduction ? `(${total} before the cap of ${stage.maxDeduction})` : "",
    ordered.length > comments.length ? `; the first ${comments.length} are listed` : "",
    note,
  ];
  return {
    name: stage.name,
    kind: stage.kind,
    state: "done",
    deduction: forbidding ? 0 : deduction,
    forbidden: forbidding !== undefined,
    message: cut(parts.filter(Boolean).join(" ")),
    comments,
  };
}

/** The judge could not do the stage: shown as such, nothing deducted (a rejudge runs it again). */
export function failedReport(stage: ResolvedStage, why: string): StageReport {
  return {
    name: stage.name,
    kind: stage.kind,
    state: "failed",
    deduction: 0,
    forbidden: false,
    message: cut(`The stage failed (the judge's side, not the program's): ${why}`),
    comments: [],
  };
}

export function skippedReport(stage: ResolvedStage, why: string): StageReport {
  return {
    name: stage.name,
    kind: stage.kind,
    state: "skipped",
    deduction: 0,
    forbidden: false,
    message: cut(why),
    comments: [],
  };
}
