import type { CaseResult } from "../../core/judge-protocol";
import type { Limits, RunResult } from "../sandbox/sandbox";

const SIGXCPU = 24;
const SIGXFSZ = 25;

/**
 * What a finished run means, from the kernel's account and the case's limits, in the order that
 * explains the failure best: an OOM kill (the cause of death), then time, then output size, then a
 * crash; else the output decides. Memory: the cgroup's limit is the case's, so exceeding it is an OOM
 * kill. A peak merely at the limit is not (it may be page cache the kernel reclaimed instead), unless
 * the run also ran out of time: at its limit the kernel reclaims on the program's behalf and bills it
 * the CPU, so a program that fills its tmpfs can spend its whole time limit evicting its own code
 * pages and faulting them back in without ever reaching the OOM killer (Python writing 600 MiB to
 * /tmp under 80 MiB: 1,969 ms of CPU, SIGXCPU, a peak of exactly 80 MiB).
 */
export function classifyRun(run: RunResult, limits: Limits): CaseResult | "ran" {
  if (run.lost) return "runtime_error";
  if (run.oomKilled) return "memory_limit_exceeded";
  if (run.wallExceeded || run.signal === SIGXCPU || run.cpuMs > limits.cpuMs)
    return run.memoryKb >= limits.memoryKb ? "memory_limit_exceeded" : "time_limit_exceeded";
  if (run.outputExceeded || run.signal === SIGXFSZ) return "output_limit_exceeded";
  if (run.memoryKb > limits.memoryKb) return "memory_limit_exceeded";
  if (run.signal !== 0 || run.exitCode !== 0) return "runtime_error";
  return "ran";
}

/** The return code a case reports: the exit status, or 128 + the signal (what a shell shows). */
export const returnCodeOf = (run: RunResult) => (run.signal ? 128 + run.signal : run.exitCode);

/**
 * Why a checker or interactor (testlib's or Kattis's) did not end with an answer: out of time or memory, a
 * flood, a signal; null when it exited, and its exit code is the answer.
 */
export function howItBroke(run: RunResult, limits: Limits): string | null {
  const ended = classifyRun(run, limits);
  if (ended === "time_limit_exceeded") return `it ran out of time (${limits.cpuMs / 1000} s of CPU)`;
  if (ended === "memory_limit_exceeded") return `it ran out of memory (${limits.memoryKb / 1024} MiB)`;
  if (ended === "output_limit_exceeded") return "it wrote too much";
  if (run.lost || run.signal !== 0) return `it was killed (status ${returnCodeOf(run)})`;
  return null;
}
