import { describe, expect, test } from "bun:test";
import type { CaseResult } from "../../src/core/judge-protocol";
import { checkerVerdict } from "../../src/judge/checks/checker";
import type { Limits, RunResult } from "../../src/judge/sandbox/sandbox";
import { subtaskOrder, subtaskScore } from "../../src/judge/record/subtasks";
import type { CaseRun } from "../../src/judge/run/steps";
import { runResult } from "../helpers/run-results";

const LIMITS: Limits = { cpuMs: 10_000, wallMs: 21_000, memoryKb: 512 * 1024, fileBytes: 1 << 20, processes: 64 };
/** How a checker's run ended, as the sandbox reports it. */
const ended = (exitCode: number, stderr: string, more: Partial<RunResult> = {}): RunResult =>
  runResult({ exitCode, stderr: new TextEncoder().encode(stderr), ...more });

describe("testlib's exit codes", () => {
  test.each([
    [0, "ok 3 numbers\n", "accepted", 1],
    [1, "wrong answer expected 3, found 4\n", "wrong_answer", 0],
    [2, "wrong output format Unexpected end of file - int32 expected\n", "wrong_answer", 0],
    [8, "unexpected eof\n", "wrong_answer", 0],
    [7, "points 0.25 a quarter\n", "wrong_answer", 0.25],
    [7, "points 1 all of it\n", "accepted", 1],
    [7, "points 0\n", "wrong_answer", 0],
    [7, "points 2.5e-1\n", "wrong_answer", 0.25],
  ])("exit %d with %j is %s earning %d", (code, stderr, state, ratio) => {
    const verdict = checkerVerdict(ended(code, stderr), LIMITS);
    expect(verdict).toEqual({ state: state as "accepted", ratio, message: `checker: ${stderr.trim()}` });
  });

  test.each([
    ["exit 3 (_fail)", ended(3, "FAIL answer has 3 numbers, input says 4\n"), "checker failure: it exited with 3"],
    ["points above 1", ended(7, "points 40 of 40\n"), "checker failure: it exited with 7 (points)"],
    ["points without a number", ended(7, "points_info=abc\n"), "checker failure: it exited with 7 (points)"],
    ["another exit code", ended(4, ""), "checker failure: it exited with 4"],
    ["a signal", ended(-1, "", { signal: 11 }), "checker failure: it was killed (status 139)"],
    ["no report from the sandbox", ended(-1, "", { signal: 9, lost: true }), "checker failure: it was killed"],
    ["out of time", ended(-1, "", { signal: 9, cpuMs: 10_001 }), "checker failure: it ran out of time (10 s of CPU)"],
    ["out of memory", ended(-1, "", { signal: 9, oomKilled: true }), "checker failure: it ran out of memory (512 MiB)"],
    ["a flood", ended(-1, "", { signal: 9, outputExceeded: true }), "checker failure: it wrote too much"],
  ])("%s is a checker failure: a system error", (_, run, message) => {
    const verdict = checkerVerdict(run, LIMITS);
    expect(verdict.state).toBe("system_error");
    expect(verdict.ratio).toBe(0);
    expect(verdict.message).toStartWith(message);
  });

  test("the message is its stderr (else its stdout), control characters escaped, cut at 1 KiB", () => {
    expect(checkerVerdict(ended(1, "", { stdout: new TextEncoder().encode("no\x1b[31m") }), LIMITS).message).toBe(
      "checker: no\\x1b[31m",
    );
    const long = checkerVerdict(ended(1, `wrong answer ${"x".repeat(5000)}`), LIMITS).message;
    expect(long.length).toBeLessThan(1100);
    expect(long).toEndWith("… (output truncated)");
  });
});

describe("subtask scoring", () => {
  const run = (state: CaseResult, ratio: number): CaseRun => ({
    ratio,
    report: { state, score: 0, timeMs: 1, memoryKb: 1, returnCode: 0, stdout: "", stderr: "" },
  });
  const subtask = { score: 60, cases: [0, 1], dependsOn: [] };

  test("all or nothing, or the lowest share of its cases (rounded down)", () => {
    expect(subtaskScore(subtask, [run("accepted", 1), run("accepted", 1)], "all")).toBe(60);
    expect(subtaskScore(subtask, [run("accepted", 1), run("wrong_answer", 0.9)], "all")).toBe(0);
    expect(subtaskScore(subtask, [run("accepted", 1), run("wrong_answer", 0.5)], "min")).toBe(30);
    expect(subtaskScore({ ...subtask, score: 7 }, [run("wrong_answer", 1 / 3)], "min")).toBe(2);
    expect(subtaskScore(subtask, [run("time_limit_exceeded", 0), run("accepted", 1)], "min")).toBe(0);
  });

  test("each subtask comes after the ones it depends on, lowest index first", () => {
    expect(subtaskOrder([{ ...subtask, dependsOn: [2] }, subtask, { ...subtask, dependsOn: [1] }])).toEqual([1, 2, 0]);
    expect(subtaskOrder([])).toEqual([]);
  });
});
