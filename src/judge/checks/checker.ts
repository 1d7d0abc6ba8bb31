import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { BuiltFile } from "../cache/file-cache";
import type { BuildDeps } from "../cache/program-cache";
import type { CheckerPlan } from "../run/plan";
import { STDERR_KEEP_BYTES, type Limits, type RunResult } from "../sandbox/sandbox";
import { runInSlot, type Slot } from "../sandbox/slots";
import { assertRan, compileInSlot, type OutputVerdict, type StagedFile, type Toolbox } from "../run/steps";
import { feedbackDir, judgeMessage, judgeMessagePath, kattisVerdict, validatorFailure } from "./kattis";
import { escapeOutput } from "../outcome/text";
import { classifyRun, howItBroke, returnCodeOf } from "../outcome/verdict";

/**
 * Checkers (special judges) from the config archive, called the way testlib checkers are:
 * `executeArgs… <input> <program output> <expected output>`. Built once per set of file digests and
 * compile command in the sandbox with the compile limits, kept in the judge's cache; each call runs
 * in the sandbox in a fresh directory of its own, after the program's directory is gone, so the
 * program never sees the checker or the answer. docs/config-reference.md "Checkers" has the protocol.
 */

/** Fixed and generous: a checker is the problem author's code, but it still runs sandboxed. */
export const CHECKER_CPU_MS = 10_000;
export const CHECKER_MEMORY_KB = 512 * 1024;
/** What the case shows of the checker's message (its stderr, else its stdout). */
export const CHECKER_MESSAGE_CHARS = 1024;
const MAX_BUILT_FILES = 256;
const MAX_BUILT_BYTES = 256 * 1024 * 1024;
/** Where the three files of a call sit in the checker's directory (beside its own files). */
const CASE_DIR = ".case";

/** testlib's exit codes (testlib.h `resultExitCode`, without the EJUDGE or TESTSYS builds). */
const EXIT = { ok: 0, wrongAnswer: 1, presentationError: 2, fail: 3, points: 7, unexpectedEof: 8 } as const;
/** `quitp(p, …)` writes `points <p> …` to stderr (testlib.h `__testlib_quitp`). */
const POINTS = /^points\s+([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)(?:\s|$)/m;

export interface CompiledChecker {
  files: StagedFile[];
  executeArgs: string[];
  protocol: CheckerPlan["protocol"];
  flags: string[];
}

export type CheckerBuild = { ok: true; checker: CompiledChecker } | { ok: false; message: string };

class CheckerCompileError extends Error {}

export type CheckerShelfDeps = BuildDeps;

/** One record's checkers: each built (or taken from the judge's cache) at most once, on first use. */
export class CheckerShelf {
  private readonly builds = new Map<string, Promise<CheckerBuild>>();

  constructor(private readonly deps: CheckerShelfDeps) {}

  get(plan: CheckerPlan): Promise<CheckerBuild> {
    const missing = plan.files.find((path) => !this.deps.config.has(path));
    // The API checked the files on upload; a version without them is the judge's problem, not the program's.
    if (missing)
      return Promise.resolve({ ok: false, message: `the config version has no ${missing} (a checker file)` });
    const digests = plan.files.map((path) => [path, this.deps.config.get(path)!.digest]);
    const key = createHash("sha256")
      .update(JSON.stringify({ files: digests, compileArgs: plan.compileArgs }))
      .digest("hex");
    let build = this.builds.get(key);
    if (!build) {
      build = this.build(plan, key);
      this.builds.set(key, build);
    }
    return build;
  }

  private async build(plan: CheckerPlan, key: string): Promise<CheckerBuild> {
    const { cache, config, cached, slot, tools, logger, signal } = this.deps;
    // Another record's build may be shared and stopped with that record: then this one builds it itself.
    for (let attempt = 0; ; attempt++) {
      try {
        const files = await cache.built(key, async () => {
          const sources: StagedFile[] = [];
          for (const path of plan.files) sources.push({ path, mode: 0o644, hostPath: await cached(config.get(path)!) });
          const built = await compileChecker(plan, sources, slot, tools, signal);
          if (!built.ok) throw new CheckerCompileError(built.message);
          logger.info("checker compiled", { key, files: plan.files });
          return built.files;
        });
        const kept = files.map(({ path, mode, hostPath }) => ({ path, mode, hostPath }));
        const { executeArgs, protocol, flags } = plan;
        return { ok: true, checker: { files: kept, executeArgs, protocol, flags } };
      } catch (error) {
        if (error instanceof CheckerCompileError) return { ok: false, message: error.message };
        if (signal.aborted || attempt > 0) throw error;
      }
    }
  }
}

/** Compiles the checker's files in the slot's sandbox with the compile limits; keeps every regular file left. */
async function compileChecker(
  plan: CheckerPlan,
  sources: StagedFile[],
  slot: Slot,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<{ ok: true; files: BuiltFile[] } | { ok: false; message: string }> {
  const run = await compileInSlot(sources, plan.compileArgs, ["*"], slot, tools, signal);
  if (!run) {
    // Nothing to build: the files are the checker (a script).
    const files: BuiltFile[] = [];
    for (const source of sources)
      files.push({ path: source.path, mode: 0o644, bytes: await readFile(source.hostPath!) });
    return { ok: true, files };
  }
  const verdict = classifyRun(run, tools.settings.compile);
  if (verdict !== "ran") {
    const said = escapeOutput(Buffer.concat([run.stdout, run.stderr]), CHECKER_MESSAGE_CHARS, run.stderrTruncated);
    const why = verdict === "runtime_error" ? `exit ${returnCodeOf(run)}` : verdict;
    return { ok: false, message: `the checker did not compile (${why}): ${said}`.trim() };
  }
  const bytes = [...run.files.values()].reduce((sum, file) => sum + file.bytes.length, 0);
  if (run.filesDropped > 0 || run.files.size > MAX_BUILT_FILES || bytes > MAX_BUILT_BYTES)
    return { ok: false, message: "the checker's build left too many files or bytes" };
  const files = [...run.files].map(([path, file]) => ({
    path,
    mode: file.executable ? 0o755 : 0o644,
    bytes: file.bytes,
  }));
  return { ok: true, files };
}

export const checkerLimits = (tools: Toolbox): Limits => ({
  cpuMs: CHECKER_CPU_MS,
  wallMs: CHECKER_CPU_MS * tools.settings.wallFactor + tools.settings.wallSlackMs,
  memoryKb: CHECKER_MEMORY_KB,
  fileBytes: tools.settings.outputLimitBytes,
  processes: tools.settings.processes,
});

/** Runs the checker on one case's input, the program's output and the expected output. */
export async function runChecker(
  checker: CompiledChecker,
  inputHost: string | null,
  output: Uint8Array,
  expectedHost: string,
  slot: Slot,
  tools: Toolbox,
  signal?: AbortSignal,
): Promise<OutputVerdict> {
  const files = [
    ...checker.files,
    // An output-only case may have no input: its checker reads an empty one.
    inputHost === null
      ? { path: `${CASE_DIR}/input`, mode: 0o644, bytes: new Uint8Array() }
      : { path: `${CASE_DIR}/input`, mode: 0o644, hostPath: inputHost },
    { path: `${CASE_DIR}/output`, mode: 0o644, bytes: output },
    { path: `${CASE_DIR}/answer`, mode: 0o644, hostPath: expectedHost },
  ];
  const limits = checkerLimits(tools);
  if (checker.protocol === "kattis") {
    // `validator input judge_answer feedback_dir flags… < output` (kattis.ts).
    const feedback = feedbackDir(CASE_DIR);
    const argv = [...checker.executeArgs, `${CASE_DIR}/input`, `${CASE_DIR}/answer`, feedback, ...checker.flags];
    const take = [judgeMessagePath(feedback)];
    const call = { argv, stdin: `${CASE_DIR}/output`, limits, keepStdout: STDERR_KEEP_BYTES, files, take };
    const run = await runInSlot(slot, tools, { ...call, dirs: [feedback.slice(0, -1)] }, signal);
    assertRan(run);
    return kattisVerdict(run, limits, judgeMessage(run, feedback), "checker");
  }
  // HUSTOJ's special judges take the answer before the output (`spj input answer output`).
  const hustoj = checker.protocol === "hustoj";
  const [second, third] = hustoj ? ["answer", "output"] : ["output", "answer"];
  const argv = [...checker.executeArgs, `${CASE_DIR}/input`, `${CASE_DIR}/${second}`, `${CASE_DIR}/${third}`];
  const call = { argv, stdin: null, limits, keepStdout: STDERR_KEEP_BYTES, files };
  const run = await runInSlot(slot, tools, call, signal);
  assertRan(run);
  return hustoj ? hustojVerdict(run, limits) : checkerVerdict(run, limits);
}

/**
 * A HUSTOJ special judge's end (FPS's `<spj>`, Hydro's `hustoj` checker): exit 0 accepted, any other exit a
 * wrong answer, as HUSTOJ reads it; a signal, running out of time or memory, or a flood is its failure.
 */
export function hustojVerdict(run: RunResult, limits: Limits): OutputVerdict {
  const words = run.stdout.length > 0 ? run.stdout : run.stderr;
  const said = escapeOutput(words, CHECKER_MESSAGE_CHARS, run.stderrTruncated).trim();
  const broke = howItBroke(run, limits);
  if (broke) return validatorFailure("checker", broke, said);
  return {
    state: run.exitCode === 0 ? "accepted" : "wrong_answer",
    ratio: run.exitCode === 0 ? 1 : 0,
    message: `checker: ${said}`.trim(),
  };
}

/**
 * testlib's protocol: 0 accepted; 1 wrong answer; 2 presentation error and 8 unexpected end of the
 * output (testlib built with ENABLE_UNEXPECTED_EOF) count as wrong answers; 7 with `points p` on
 * stderr earns p × the case's score (p from 0 to 1); 3 (testlib's `_fail`), any other code, a signal,
 * running out of time or memory, or a flood is a checker failure: the case is a system error. An
 * interactor's end reads the same (interactive.ts), under its own name.
 */
export function checkerVerdict(run: RunResult, limits: Limits, who = "checker"): OutputVerdict {
  const words = run.stderr.length > 0 ? run.stderr : run.stdout;
  const text = new TextDecoder().decode(words);
  const said = escapeOutput(words, CHECKER_MESSAGE_CHARS, run.stderrTruncated).trim();
  const verdict = (state: OutputVerdict["state"], ratio: number): OutputVerdict => ({
    state,
    ratio,
    message: `${who}: ${said}`.trim(),
  });
  const failed = (why: string) => validatorFailure(who, why, said);
  const broke = howItBroke(run, limits);
  if (broke) return failed(broke);
  switch (run.exitCode) {
    case EXIT.ok:
      return verdict("accepted", 1);
    case EXIT.wrongAnswer:
    case EXIT.presentationError:
    case EXIT.unexpectedEof:
      return verdict("wrong_answer", 0);
    case EXIT.fail:
      return failed(`it exited with 3 (testlib's _fail: the ${who} or the test data is wrong)`);
    case EXIT.points: {
      const match = POINTS.exec(text);
      const points = match ? Number(match[1]) : NaN;
      if (!(points >= 0 && points <= 1))
        return failed('it exited with 7 (points) but its stderr has no "points p" with p from 0 to 1');
      return verdict(points >= 1 ? "accepted" : "wrong_answer", points);
    }
    default:
      return failed(`it exited with ${run.exitCode}`);
  }
}
