import { expect, test } from "bun:test";
import { classifyRun } from "../../src/judge/outcome/verdict";
import type { Limits, RunResult } from "../../src/judge/sandbox/sandbox";
import { runResult } from "../helpers/run-results";

// The verdict of a run from the kernel's account (verdict.ts classifyRun), for the cases where two
// limits meet: the figures are those of real runs in the sandbox.
const LIMITS: Limits = { cpuMs: 1000, wallMs: 3000, memoryKb: 80 * 1024, fileBytes: 1 << 24, processes: 64 };
const run = (fields: Partial<RunResult>): RunResult => runResult({ memoryKb: 9_000, ...fields });

test.each([
  ["an OOM kill", { oomKilled: true, signal: 9, memoryKb: LIMITS.memoryKb }, "memory_limit_exceeded"],
  // Python filling /tmp under 80 MiB: the time went to reclaim at the limit, and the OOM killer never came.
  ["out of CPU at the memory limit", { signal: 24, cpuMs: 1969, memoryKb: LIMITS.memoryKb }, "memory_limit_exceeded"],
  ["out of wall time at the memory limit", { wallExceeded: true, memoryKb: LIMITS.memoryKb }, "memory_limit_exceeded"],
  ["out of CPU under the memory limit", { signal: 24, cpuMs: 1004, memoryKb: 10_288 }, "time_limit_exceeded"],
  [
    "out of CPU one page under the limit",
    { signal: 24, cpuMs: 1500, memoryKb: LIMITS.memoryKb - 4 },
    "time_limit_exceeded",
  ],
  ["out of wall time, asleep", { wallExceeded: true, cpuMs: 2, signal: 9 }, "time_limit_exceeded"],
  // A program whose page cache filled its limit and that finished in time ran well.
  ["in time at the memory limit", { memoryKb: LIMITS.memoryKb, cpuMs: 300 }, "ran"],
  ["a flood", { outputExceeded: true, signal: 9 }, "output_limit_exceeded"],
  ["a crash", { signal: 11 }, "runtime_error"],
] as [string, Partial<RunResult>, ReturnType<typeof classifyRun>][])("%s", (_name, fields, verdict) => {
  expect(classifyRun(run(fields), LIMITS)).toBe(verdict);
});
