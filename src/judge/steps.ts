import { readFile, realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import type { CaseReport } from "./judge-api";
import type { JudgeSettings } from "./judge-settings";
import { judgeOutput, type CompareRule } from "./compare";
import type { CasePlan, JudgePlan } from "./plan";
import { Container, type ContainerRun } from "./container";
import { readOutput, STDERR_KEEP_BYTES, type RunResult } from "./sandbox";
import type { Slot } from "./slots";
import { escapeOutput } from "./text";
import { classifyRun, returnCodeOf } from "./verdict";

import { JudgeFault, populate, slotWorkDir, stageCase, type StagedFile } from "./work-dir";

export { JudgeFault, populate, slotWorkDir, type StagedFile };

export interface Toolbox {
  runner: string;
  settings: JudgeSettings;
}

export type CompileResult =
  | { ok: true; program: StagedFile[] }
  | { ok: false; state: "compile_error" | "system_error"; message: string };

const PROGRAM_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A file the sandboxed program left behind, read only if it is a regular file inside the directory:
 * the program is gone by now (the runner killed and reaped every process of its run before replying), so
 * nothing moves between this check and the read.
 */
export async function takeFile(dir: string, path: string): Promise<StagedFile | null> {
  // No link anywhere on the path (readOutput refuses one only as the last component).
  const real = await realpath(join(dir, path)).catch(() => null);
  if (real !== join(dir, path) || !real.startsWith(`${dir}/`)) return null;
  const file = await readOutput(dir, path, PROGRAM_MAX_BYTES);
  if (!file || file.truncated) return null;
  return { path, mode: file.executable ? 0o755 : 0o644, bytes: file.data };
}

export function assertRan(run: RunResult): void {
  // bubblewrap speaks only when it could not build the sandbox; the runner when it could not set the
  // program up (cgroup, seccomp); the judge (sandbox.ts) when a run never ended or its processes
  // outlived a kill: the judge machine's fault, never the program's.
  const said = run.diagnostics.trim();
  if (run.lost && /^(bwrap|runner|sandbox):/.test(said)) throw new JudgeFault(`sandbox failed: ${said}`);
}

/**
 * A run in the slot's container (its uid, its cgroup, the judge's /tmp size); a new container when the
 * slot has none yet or its last one was thrown away (container.ts).
 */
export async function runInSlot(
  slot: Slot,
  tools: { runner: string; settings: { diskBytes: number } },
  run: ContainerRun,
  signal?: AbortSignal,
): Promise<RunResult> {
  if (!slot.container?.usable) {
    // Closed already, or never started (close is idempotent): nothing of the old one may linger.
    await slot.container?.close();
    const { runner, settings } = tools;
    const workDir = join(slot.root, "work");
    slot.container = Container.start({
      runner,
      workDir,
      uid: slot.uid,
      cgroup: slot.cgroup,
      tmpBytes: settings.diskBytes,
    });
  }
  return slot.container.run(run, signal);
}

/**
 * The slot's work directory given the sources, and the compile command run there with the compile
 * limits (no run when there is no command). What the run left is in `dir` for the caller to take.
 */
export async function compileInSlot(
  sources: StagedFile[],
  argv: string[],
  slot: Slot,
  tools: Toolbox,
  signal?: AbortSignal,
): Promise<{ dir: string; run: RunResult | null }> {
  const dir = await slotWorkDir(slot);
  await populate(dir, slot.uid, sources);
  if (argv.length === 0) return { dir, run: null };
  const compileRun = { argv, stdin: null, limits: tools.settings.compile, keepStdout: STDERR_KEEP_BYTES };
  const run = await runInSlot(slot, tools, compileRun, signal);
  assertRan(run);
  return { dir, run };
}

/**
 * Compiles the sources in the slot's sandbox with the compile limits, then takes every file the
 * cases execute from the result (or, failing that, from the config: a problem's own script).
 */
export async function compile(
  plan: JudgePlan,
  sources: StagedFile[],
  configFiles: Map<string, string>,
  slot: Slot,
  tools: Toolbox,
  signal?: AbortSignal,
): Promise<CompileResult> {
  const { dir, run } = await compileInSlot(sources, plan.compileArgs, slot, tools, signal);
  if (run) {
    const limits = tools.settings.compile;
    const output = escapeOutput(
      Buffer.concat([run.stdout, run.stderr]),
      60 * 1024,
      run.stderrTruncated || run.stdout.length >= STDERR_KEEP_BYTES,
    );
    const verdict = classifyRun(run, limits);
    if (verdict !== "ran") {
      const why =
        verdict === "time_limit_exceeded"
          ? "the compiler ran out of time"
          : verdict === "memory_limit_exceeded"
            ? "the compiler ran out of memory"
            : `the compiler exited with ${returnCodeOf(run)}`;
      return { ok: false, state: "compile_error", message: `${why}\n${output}`.trim() };
    }
  }
  const program: StagedFile[] = [];
  const wanted = new Set(plan.cases.flatMap((c) => c.executeFiles));
  for (const path of wanted) {
    const built = await takeFile(dir, path);
    if (built) program.push(built);
    else if (configFiles.has(path)) program.push({ path, mode: 0o755, hostPath: configFiles.get(path)! });
    else return { ok: false, state: "compile_error", message: `compilation produced no ${path}` };
  }
  return { ok: true, program };
}

/** How a case's output was judged: by a built-in comparison or a checker (checker.ts). */
export interface OutputVerdict {
  state: "accepted" | "wrong_answer" | "system_error";
  /** The share of the case's score earned: 1 accepted, 0 wrong, between for a checker's partial points. */
  ratio: number;
  /** What the checker said, shown with the case's output. */
  message: string;
}
export type OutputJudge = (output: Uint8Array) => Promise<OutputVerdict>;

/** The built-in comparison against the expected output on the host: bytes, linear, yielding (compare.ts). */
export const compareWith =
  (expectedHost: string, rule: CompareRule): OutputJudge =>
  async (output) =>
    (await judgeOutput(output, await readFile(expectedHost), rule))
      ? { state: "accepted", ratio: 1, message: "" }
      : { state: "wrong_answer", ratio: 0, message: "" };

/** File output: the file the program left is judged; none (or not a regular file) is a wrong answer. */
async function judgeFile(dir: string, name: string, judge: OutputJudge): Promise<OutputVerdict> {
  const file = await takeFile(dir, name);
  if (!file?.bytes) return { state: "wrong_answer", ratio: 0, message: `the program wrote no ${name}` };
  return judge(file.bytes);
}

/** A case's report, and the share of its score earned (subtasks score by it). */
export interface CaseRun {
  report: CaseReport;
  ratio: number;
}

/**
 * One case in a fresh directory holding only the program and this case's input; the output is judged
 * on the host (or by a checker in a directory of its own) once the program's directory is gone.
 */
export async function runCase(
  plan: CasePlan,
  program: StagedFile[],
  inputHost: string,
  judge: OutputJudge,
  slot: Slot,
  tools: Toolbox,
  signal?: AbortSignal,
): Promise<CaseRun> {
  const files = program.filter((f) => plan.executeFiles.includes(f.path));
  if (plan.fileInput && files.some((f) => f.path === plan.fileInput))
    throw new JudgeFault(`the case's fileInput "${plan.fileInput}" is a file of the program`);
  // The input keeps its name (programs that open it by name work) unless the program uses that name.
  const inputName =
    plan.fileInput ??
    (files.some((f) => f.path === basename(plan.inputPath)) ? ".judge-stdin" : basename(plan.inputPath));
  const dir = await stageCase(slot, files, [{ path: inputName, mode: 0o644, hostPath: inputHost }]);
  const argv = plan.executeArgs;
  const stdin = plan.fileInput ? null : inputName;
  const run = await runInSlot(slot, tools, { argv, stdin, limits: plan.limits }, signal);
  assertRan(run);
  const ran = programEnd(run, plan);
  // A run that did not end cleanly keeps the run's verdict (time, memory, crash); its output is not judged.
  const verdict: OutputVerdict =
    ran !== "ran"
      ? { state: ran as OutputVerdict["state"], ratio: 0, message: "" }
      : plan.fileOutput
        ? await judgeFile(dir, plan.fileOutput, judge)
        : await judge(run.stdout);
  return caseRunOf(plan, run, verdict, escapeOutput(run.stdout, 60 * 1024, run.outputExceeded));
}

/**
 * How the program's run ended (classifyRun). A managed runtime that stopped at its own heap limit (sized
 * to the case's) is a memory verdict, as the kernel's OOM kill would be; only a failed run is reread:
 * printing the message gains a program nothing.
 */
export function programEnd(run: RunResult, plan: CasePlan): ReturnType<typeof classifyRun> {
  const ran = classifyRun(run, plan.limits);
  if (ran === "runtime_error" && plan.outOfMemory?.test(new TextDecoder().decode(run.stderr)))
    return "memory_limit_exceeded";
  return ran;
}

/** A case's report: the verdict and its share of the score, the run's measures, the judge's message first. */
export function caseRunOf(plan: CasePlan, run: RunResult, verdict: OutputVerdict, stdout: string): CaseRun {
  const stderr = escapeOutput(run.stderr, 60 * 1024, run.stderrTruncated);
  return {
    ratio: verdict.ratio,
    report: {
      state: verdict.state,
      score: Math.floor(plan.score * verdict.ratio + 1e-9),
      timeMs: run.cpuMs,
      memoryKb: run.memoryKb,
      returnCode: returnCodeOf(run),
      stdout,
      stderr: verdict.message ? `${verdict.message}${stderr ? `\n${stderr}` : ""}` : stderr,
    },
  };
}
