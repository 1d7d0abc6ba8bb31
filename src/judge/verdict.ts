import type { CaseResult } from "../modules/records/record-states";
import type { Limits, RunResult } from "./sandbox";

const SIGXCPU = 24;
const SIGXFSZ = 25;

/**
 * What a finished run means, from the kernel's account and the case's limits, in the order that
 * explains the failure best: time, then output size, then memory, then a crash; else the output decides.
 */
export function classifyRun(run: RunResult, limits: Limits, outputTooLarge: boolean): CaseResult | "ran" {
  if (run.lost) return "runtime_error";
  if (run.wallExceeded || run.signal === SIGXCPU || run.cpuMs > limits.cpuMs) return "time_limit_exceeded";
  if (outputTooLarge || run.signal === SIGXFSZ) return "output_limit_exceeded";
  if (run.memoryKb > limits.memoryKb) return "memory_limit_exceeded";
  if (run.signal !== 0 || run.exitCode !== 0) return "runtime_error";
  return "ran";
}

/** The return code a case reports: the exit status, or 128 + the signal (what a shell shows). */
export const returnCodeOf = (run: RunResult) => (run.signal ? 128 + run.signal : run.exitCode);

const normalise = (text: string) => text.split(/\r?\n/).map((line) => line.trim().split(/\s+/).filter(Boolean).join(" ")).filter((line, i, all) => line !== "" || all.slice(i).some((l) => l.trim() !== "")).join("\n").trim();

/**
 * Output against the expected output: byte for byte except that a final newline never matters, or,
 * with `ignoreWhitespace`, comparing lines of whitespace-separated tokens (trailing blank lines ignored).
 */
export function outputMatches(actual: Uint8Array, expected: Uint8Array, ignoreWhitespace: boolean): boolean {
  const decoder = new TextDecoder();
  const a = decoder.decode(actual);
  const e = decoder.decode(expected);
  if (ignoreWhitespace) return normalise(a) === normalise(e);
  return a.replace(/\n$/, "") === e.replace(/\n$/, "");
}
