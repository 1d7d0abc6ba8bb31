import { describe, expect, test } from "bun:test";
import { interactiveVerdict } from "../../src/judge/checks/interactive";
import type { CasePlan } from "../../src/judge/run/plan";
import type { PeerResult, RunResult } from "../../src/judge/sandbox/sandbox";
import { JudgeFault } from "../../src/judge/run/steps";
import { runResult } from "../helpers/run-results";

// How a pair run (the program and the interactor, runner-pair.c) becomes a verdict: what ended first
// was the cause. Each row is how both ended; the sandbox tests and tests/judge/interactive.test.ts run
// the real thing.
const limits = { cpuMs: 1000, wallMs: 3000, memoryKb: 65536, fileBytes: 1 << 20, processes: 16 };
const plan = { limits, outOfMemory: /java\.lang\.OutOfMemoryError/ } as CasePlan;
const text = (s: string) => new TextEncoder().encode(s);

const peer = (fields: Partial<PeerResult>): PeerResult => ({
  ended: true,
  exitCode: 0,
  signal: 0,
  cpuMs: 5,
  memoryKb: 1500,
  setupFailed: "",
  outputExceeded: false,
  stderr: text("ok found it"),
  stderrTruncated: false,
  first: false,
  programEnded: true,
  ...fields,
});
const run = (fields: Partial<RunResult>, p: Partial<PeerResult>): RunResult => runResult({ ...fields, peer: peer(p) });
const WA = { exitCode: 1, stderr: text("wrong answer 7 is not it") };
const SIGPIPE = 13;
const SIGSEGV = 11;
const STOPPED = { exitCode: -1, signal: 9 };

const ROWS: [string, RunResult, string, number][] = [
  ["both end well", run({}, {}), "accepted", 1],
  ["the interactor accepts first, then the program ends well", run({}, { first: true }), "accepted", 1],
  [
    "the interactor says wrong first; the program dies writing to it",
    run({ signal: SIGPIPE, exitCode: -1 }, { ...WA, first: true }),
    "wrong_answer",
    0,
  ],
  [
    "the interactor says wrong first; the program then spins out its CPU",
    run({ cpuMs: 2100, signal: 24, exitCode: -1 }, { ...WA, first: true }),
    "wrong_answer",
    0,
  ],
  [
    "the interactor accepts first; the program then spins out its CPU",
    run({ cpuMs: 2100, signal: 24, exitCode: -1 }, { first: true }),
    "time_limit_exceeded",
    0,
  ],
  [
    "the program crashes first; the interactor reads an early end",
    run({ signal: SIGSEGV, exitCode: -1 }, { exitCode: 2 }),
    "runtime_error",
    0,
  ],
  ["the program ends early but well; the interactor reads an early end", run({}, { ...WA }), "wrong_answer", 0],
  ["the program runs out of memory first", run({ oomKilled: true, ...STOPPED }, { ...WA }), "memory_limit_exceeded", 0],
  [
    "the JVM's own OutOfMemoryError",
    run(
      { exitCode: 1, stderr: text('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space') },
      { ...WA },
    ),
    "memory_limit_exceeded",
    0,
  ],
  [
    "both wait on each other until the wall clock",
    run({ wallExceeded: true, ...STOPPED }, { ended: false, programEnded: false, exitCode: -1, signal: 9 }),
    "time_limit_exceeded",
    0,
  ],
  [
    "the interactor hangs after the program ended well",
    run({ wallExceeded: true }, { ended: false, exitCode: -1, signal: 9 }),
    "system_error",
    0,
  ],
  [
    "the interactor fails first (exit 3)",
    run({ signal: SIGPIPE, exitCode: -1 }, { exitCode: 3, stderr: text("FAIL bad input"), first: true }),
    "system_error",
    0,
  ],
  [
    "the interactor floods its stderr",
    run({ ...STOPPED, programEnded: false } as Partial<RunResult>, {
      outputExceeded: true,
      ended: false,
      programEnded: false,
    }),
    "system_error",
    0,
  ],
  ["the interactor's partial points", run({}, { exitCode: 7, stderr: text("points 0.25 slow") }), "wrong_answer", 0.25],
  ["an interactor that is not there", run({}, { setupFailed: "e", ended: true, exitCode: 127 }), "system_error", 0],
];

describe("an interactive case's verdict", () => {
  test.each(ROWS)("%s", (_, result, state, ratio) => {
    const verdict = interactiveVerdict(result, plan);
    expect(verdict.state).toBe(state as never);
    expect(verdict.ratio).toBe(ratio);
  });

  test("the interactor's message is kept beside a verdict of the program's own", () => {
    const verdict = interactiveVerdict(
      run({ signal: SIGSEGV, exitCode: -1 }, { exitCode: 2, stderr: text("wrong answer early end") }),
      plan,
    );
    expect(verdict).toEqual({
      state: "runtime_error" as never,
      ratio: 0,
      message: "interactor: wrong answer early end",
    });
  });

  test("a failing interactor says so and why", () => {
    const verdict = interactiveVerdict(run({}, { exitCode: 3, stderr: text("FAIL bad input"), first: true }), plan);
    expect(verdict.message).toBe(
      "interactor failure: it exited with 3 (testlib's _fail: the interactor or the test data is wrong)\nFAIL bad input",
    );
  });

  test("a run without its interactor, or an interactor the sandbox could not set up, is the judge's fault", () => {
    const bare = { ...run({}, {}), peer: undefined };
    expect(() => interactiveVerdict(bare, plan)).toThrow(JudgeFault);
    expect(() => interactiveVerdict(run({}, { setupFailed: "s" }), plan)).toThrow(JudgeFault);
  });
});
