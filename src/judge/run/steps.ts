import { readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { CaseReport } from "../api/judge-api";
import type { JudgeSettings } from "../judge-settings";
import { judgeOutput, type CompareRule } from "../outcome/compare";
import type { CasePlan, JudgePlan } from "./plan";
import { STDERR_KEEP_BYTES, type RunResult } from "../sandbox/sandbox";
import { runInSlot, type Slot } from "../sandbox/slots";
import { escapeOutput } from "../outcome/text";
import { classifyRun, returnCodeOf } from "../outcome/verdict";
import { JudgeFault, type StagedFile, type WorkFile } from "../sandbox/stage";
import { JAVA_CLASS } from "../../core/config-model/presets";
import { javaPublicClass } from "./java-class";

export { JudgeFault, type StagedFile };

export interface Toolbox {
  runner: string;
  settings: JudgeSettings;
}

export type CompileResult =
  | { ok: true; program: StagedFile[] }
  | { ok: false; state: "compile_error" | "system_error"; message: string };

/** The largest file a compile may leave for the cases (a static binary, a jar). */
export const PROGRAM_MAX_BYTES = 256 * 1024 * 1024;

export function assertRan(run: RunResult): void {
  // bubblewrap speaks only when it could not build the sandbox; the runner when it could not set the
  // program up (cgroup, seccomp, /work); the judge (container.ts) when a run never ended or its processes
  // outlived a kill: the judge machine's fault, never the program's.
  const said = run.diagnostics.trim();
  if (run.lost && /^(bwrap|runner|sandbox):/.test(said)) throw new JudgeFault(`sandbox failed: ${said}`);
}

/**
 * The compile command run in the slot with the compile limits, the sources copied (writable) into its
 * /work; the files `take` names are read back from it ("*": every regular file). Null when there is no
 * command.
 */
export async function compileInSlot(
  sources: StagedFile[],
  argv: string[],
  take: readonly string[],
  slot: Slot,
  tools: Toolbox,
  signal?: AbortSignal,
): Promise<RunResult | null> {
  if (argv.length === 0) return null;
  const files: WorkFile[] = sources.map((f) => ({ ...f, writable: true }));
  const limits = tools.settings.compile;
  const compileRun = { argv, stdin: null, limits, keepStdout: STDERR_KEEP_BYTES, files, take };
  const run = await runInSlot(slot, tools, { ...compileRun, takeMax: PROGRAM_MAX_BYTES }, signal);
  assertRan(run);
  return run;
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
  const wanted = [...new Set(plan.cases.flatMap((c) => c.executeFiles))];
  const argv = await compileArgv(plan, sources);
  if ("error" in argv) return { ok: false, state: "compile_error", message: escapeOutput(Buffer.from(argv.error)) };
  const run = await compileInSlot(sources, argv.argv, wanted, slot, tools, signal);
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
  for (const path of wanted) {
    // Without a compile command the sources are the program (an interpreted language).
    const built = run?.files.get(path);
    const source = run ? undefined : sources.find((f) => f.path === path);
    if (built) program.push({ path, mode: built.executable ? 0o755 : 0o644, bytes: built.bytes });
    else if (source) program.push(source);
    else if (configFiles.has(path)) program.push({ path, mode: 0o755, hostPath: configFiles.get(path)! });
    else return { ok: false, state: "compile_error", message: `compilation produced no ${path}` };
  }
  return { ok: true, program };
}

/**
 * The compile command with `{javaClass}` filled in from the first compile file (presets.ts): a name read from
 * the source only when it is a Java identifier, so nothing of the submission's reaches javac as an option.
 */
async function compileArgv(plan: JudgePlan, sources: StagedFile[]): Promise<{ argv: string[] } | { error: string }> {
  if (!plan.compileArgs.some((arg) => arg.includes(JAVA_CLASS))) return { argv: plan.compileArgs };
  const path = plan.compileFiles[0];
  const file = sources.find((f) => f.path === path);
  if (!file) return { error: `there is no ${path} to name the public class of` };
  const found = javaPublicClass(new TextDecoder().decode(file.bytes ?? (await readFile(file.hostPath!))), path);
  if ("error" in found) return found;
  return { argv: plan.compileArgs.map((arg) => arg.replaceAll(JAVA_CLASS, found.name)) };
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
    (await judgeOutput(output, await expectedBytes(expectedHost), rule))
      ? { state: "accepted", ratio: 1, message: "" }
      : { state: "wrong_answer", ratio: 0, message: "" };

/** Expected outputs up to this size are read at once: ~7 µs, against ~31 µs through fs/promises' thread. */
const READ_AT_ONCE = 1 << 20;

/** An expected output: read at once when small (most are), else without holding up the judge's other slots. */
async function expectedBytes(path: string): Promise<Uint8Array> {
  return statSync(path).size <= READ_AT_ONCE ? readFileSync(path) : await readFile(path);
}

/** File output: the file the program left is judged; none (or not a regular file) is a wrong answer. */
async function judgeFile(run: RunResult, name: string, judge: OutputJudge): Promise<OutputVerdict> {
  const file = run.files.get(name);
  if (!file) return { state: "wrong_answer", ratio: 0, message: `the program wrote no ${name}` };
  return judge(file.bytes);
}

/** A case's report, and the share of its score earned (subtasks score by it). */
export interface CaseRun {
  report: CaseReport;
  ratio: number;
}

/**
 * One case in a /work of its own holding only the program and this case's input, both read-only; the
 * output is judged on the host (or by a checker in a run of its own), never where the program ran.
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
  const input: WorkFile = { path: inputName, mode: 0o644, hostPath: inputHost };
  const argv = plan.executeArgs;
  const stdin = plan.fileInput ? null : inputName;
  const take = plan.fileOutput ? [plan.fileOutput] : [];
  const run = await runInSlot(
    slot,
    tools,
    { argv, stdin, limits: plan.limits, files: [...files, input], take },
    signal,
  );
  assertRan(run);
  const ran = programEnd(run, plan);
  // A run that did not end cleanly keeps the run's verdict (time, memory, crash); its output is not judged.
  const verdict: OutputVerdict =
    ran !== "ran"
      ? { state: ran as OutputVerdict["state"], ratio: 0, message: "" }
      : plan.fileOutput
        ? await judgeFile(run, plan.fileOutput, judge)
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
