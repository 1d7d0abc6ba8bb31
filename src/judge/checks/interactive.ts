import { caseWithout as caseOf } from "../../core/judge-protocol";
import { CHECKER_MEMORY_KB, checkerVerdict, runChecker } from "./checker";
import type { CaseContext } from "./case-context";
import type { CasePlan } from "../run/plan";
import type { Limits, PeerResult, RunResult } from "../sandbox/sandbox";
import {
  assertRan,
  caseRunOf,
  JudgeFault,
  programEnd,
  type CaseRun,
  type OutputVerdict,
  type StagedFile,
} from "../run/steps";
import { runInSlot } from "../sandbox/slots";
import { feedbackDir, judgeMessage, judgeMessagePath, kattisVerdict } from "./kattis";

/**
 * Interactive cases (docs/config-reference.md "Interactive problems"): the program and the problem's interactor run
 * at once in the slot's container, each one's stdout the other's stdin (runner-pair.c). The interactor is a testlib
 * interactor, called `executeArgs… input output` in a directory of its own that the program cannot see;
 * its exit code is the verdict, read as a checker's. When the case also has a checker, the checker judges
 * what the interactor wrote to `output` (Codeforces' way), once the interactor has accepted.
 */

/** The interactor's directory under /work: hidden from the program by the runner. */
export const INTERACTOR_DIR = ".interactor";

/** The interactor's limits: memory as a checker's; CPU up to the program's wall clock, which ends both. */
export const interactorLimits = (program: Limits): Limits => ({
  ...program,
  cpuMs: program.wallMs,
  memoryKb: CHECKER_MEMORY_KB,
});

/** The interactor's side of a pair run, shaped as a run of its own so a checker's rules can read it. */
function peerRun(peer: PeerResult): RunResult {
  return {
    exitCode: peer.exitCode,
    signal: peer.signal,
    cpuMs: peer.cpuMs,
    wallMs: 0,
    memoryKb: peer.memoryKb,
    wallExceeded: !peer.ended,
    oomKilled: false,
    outputExceeded: peer.outputExceeded,
    stdout: new Uint8Array(),
    stderr: peer.stderr,
    stderrTruncated: peer.stderrTruncated,
    lost: false,
    diagnostics: "",
    files: new Map(),
    filesDropped: 0,
  };
}

/**
 * A pair run's verdict, the way DOMjudge and Codeforces decide it: what ended first was the cause. An
 * interactor that ends first with a wrong answer (or partial points) makes it a wrong answer whatever the
 * program does next (a write to a closed pipe, a crash on missing input); one that fails first is a system
 * error. Otherwise a program that overran its time or memory, or crashed, gets that verdict, and a
 * program that ended cleanly gets the interactor's. An interactor still running after the program ended
 * is the interactor's failure; both waiting on each other until the wall clock is a time limit.
 */
export function interactiveVerdict(
  run: RunResult,
  plan: CasePlan,
  readPeer: (run: RunResult, limits: Limits) => OutputVerdict = (r, l) => checkerVerdict(r, l, "interactor"),
): OutputVerdict {
  const peer = run.peer;
  if (!peer) throw new JudgeFault("the sandbox ran an interactive case without its interactor");
  if (peer.setupFailed && peer.setupFailed !== "e")
    throw new JudgeFault(`interactor set-up failed at ${peer.setupFailed}`);
  const limits = interactorLimits(plan.limits);
  const said: OutputVerdict = peer.setupFailed
    ? { state: "system_error", ratio: 0, message: "interactor failure: it could not be started (no such program)" }
    : peer.outputExceeded || peer.ended
      ? readPeer(peerRun(peer), limits)
      : { state: "system_error", ratio: 0, message: "interactor failure: it did not end after the program did" };
  if (peer.outputExceeded) return said;
  if (peer.first && said.state !== "accepted") return said;
  // The program's own end; an interactor left running after it is not the program's time.
  const own = peer.programEnded ? { ...run, wallExceeded: false } : run;
  const ended = programEnd(own, plan);
  if (ended !== "ran") return { state: ended as OutputVerdict["state"], ratio: 0, message: peerNote(said) };
  return said;
}

/** What the interactor said, shown beside a verdict of the program's own. */
const peerNote = (said: OutputVerdict) => (said.state === "system_error" ? "" : said.message);

/** One interactive case: the program and the interactor staged, run together, judged. */
export async function runInteractiveCase(c: CasePlan, program: StagedFile[], ctx: CaseContext): Promise<CaseRun> {
  const input = ctx.config.get(c.inputPath);
  if (!input) return { ratio: 0, report: caseOf("system_error", `the config version has no ${c.inputPath}`) };
  const built = await ctx.checkers.get(c.interactor!);
  if (!built.ok) return { ratio: 0, report: caseOf("system_error", `interactor failure: ${built.message}`) };
  const files = program.filter((f) => c.executeFiles.includes(f.path));
  if (files.some((f) => f.path === INTERACTOR_DIR || f.path.startsWith(`${INTERACTOR_DIR}/`)))
    throw new JudgeFault(`the program has a file under ${INTERACTOR_DIR}, where the interactor runs`);
  const inputHost = await ctx.cached(input);
  const kattis = built.checker.protocol === "kattis";
  const inDir = (f: StagedFile): StagedFile => ({ ...f, path: `${INTERACTOR_DIR}/${f.path}` });
  // A Kattis interactor also reads the judge's answer (none in the config: an empty one, as problemtools
  // gives an interactive problem's empty .ans files).
  const expected = ctx.config.get(c.expectedPath);
  const answer: StagedFile = expected
    ? { path: "answer", mode: 0o644, hostPath: await ctx.cached(expected) }
    : { path: "answer", mode: 0o644, bytes: new Uint8Array() };
  const interactorFiles = [
    ...built.checker.files.map(inDir),
    inDir({ path: "input", mode: 0o644, hostPath: inputHost }),
    ...(kattis ? [inDir(answer)] : []),
  ];
  const feedback = kattis ? feedbackDir(INTERACTOR_DIR) : "";
  const { executeArgs, flags } = built.checker;
  const peer = {
    argv: kattis
      ? [...executeArgs, "input", "answer", feedback.slice(INTERACTOR_DIR.length + 1), ...flags]
      : [...executeArgs, "input", "output"],
    dir: `/work/${INTERACTOR_DIR}`,
    cpuMs: interactorLimits(c.limits).cpuMs,
    memoryKb: CHECKER_MEMORY_KB,
  };
  const run = await runInSlot(
    ctx.slot,
    ctx.tools,
    {
      argv: c.executeArgs,
      stdin: null,
      limits: c.limits,
      peer,
      files: [...files, ...interactorFiles],
      // The interactor's directory is its own to write in (its output, a Kattis feedback directory).
      dirs: [INTERACTOR_DIR, ...(kattis ? [feedback.slice(0, -1)] : [])],
      take: [`${INTERACTOR_DIR}/output`, ...(kattis ? [judgeMessagePath(feedback)] : [])],
    },
    ctx.halt,
  );
  assertRan(run);
  const message = kattis ? judgeMessage(run, feedback) : null;
  let verdict = kattis
    ? interactiveVerdict(run, c, (r, limits) => kattisVerdict(r, limits, message, "interactor"))
    : interactiveVerdict(run, c);
  if (verdict.state === "accepted" && c.checker) verdict = await checkInteraction(c, run, inputHost, ctx, verdict);
  // The program's output went to the interactor: nothing of it to show.
  return caseRunOf(c, run, verdict, "");
}

/** The case's checker on what the interactor wrote (`output`), with the case's expected output. */
async function checkInteraction(
  c: CasePlan,
  run: RunResult,
  inputHost: string,
  ctx: CaseContext,
  interactor: OutputVerdict,
): Promise<OutputVerdict> {
  const output = run.files.get(`${INTERACTOR_DIR}/output`);
  const expected = ctx.config.get(c.expectedPath);
  if (!expected) return { state: "system_error", ratio: 0, message: `the config version has no ${c.expectedPath}` };
  const built = await ctx.checkers.get(c.checker!);
  if (!built.ok) return { state: "system_error", ratio: 0, message: `checker failure: ${built.message}` };
  const { slot, tools, halt } = ctx;
  const checked = await runChecker(
    built.checker,
    inputHost,
    output?.bytes ?? new Uint8Array(),
    await ctx.cached(expected),
    slot,
    tools,
    halt,
  );
  return { ...checked, message: [interactor.message, checked.message].filter(Boolean).join("\n") };
}
