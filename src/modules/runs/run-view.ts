import { isoTime } from "../../http/schemas";
import type { StoredCase } from "../judging/record-states";
import type { RunMode } from "./run-config";
import type { RunView } from "./runs.schemas";

export interface RunFields {
  id: string;
  problemId: string;
  problemSetId: string | null;
  language: string;
  mode: RunMode;
  state: RunView["state"];
  sources: (number | null)[];
  cases: (StoredCase | null)[];
  createdAt: Date;
  judgedAt: Date | null;
  expiresAt: Date;
}

/** Signals a return code above 128 may stand for (128 + the signal, as a shell shows it). */
const LAST_SIGNAL = 64;

/** Exit code or signal from a case's return code: a run that did not end cleanly above 128 was signalled. */
function endOf(c: StoredCase): { exitCode: number | null; signal: number | null } {
  const code = c.returnCode;
  if (c.state !== "accepted" && code > 128 && code <= 128 + LAST_SIGNAL) return { exitCode: null, signal: code - 128 };
  return { exitCode: code, signal: null };
}

/**
 * A run as its owner sees it: a compile error as the compiler's output and no results; otherwise each
 * case reported so far with the program's output, measures and verdict.
 */
export function runViewOf(run: RunFields): RunView {
  const reported = run.cases.map((c, index) => [c, index] as const).filter(([c]) => c !== null) as [
    StoredCase,
    number,
  ][];
  const compileError = reported.find(([c]) => c.state === "compile_error");
  const compiled = reported.some(([c]) => c.state !== "etc") || run.state === "done";
  const compileOutput = compileError ? compileError[0].stderr : compiled ? "" : null;
  const results = compileError
    ? []
    : reported.map(([c, index]) => ({
        index,
        sampleIndex: run.sources[index] ?? null,
        verdict: c.state,
        stdout: c.stdout,
        stderr: c.stderr,
        timeMs: c.timeMs,
        memoryKb: c.memoryKb,
        ...endOf(c),
      }));
  return {
    id: run.id,
    problemId: run.problemId,
    problemSetId: run.problemSetId,
    language: run.language,
    mode: run.mode,
    state: run.state,
    compileOutput,
    results,
    createdAt: isoTime(run.createdAt),
    judgedAt: isoTime(run.judgedAt),
    expiresAt: isoTime(run.expiresAt),
  };
}
