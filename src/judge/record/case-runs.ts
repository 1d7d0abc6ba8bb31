import { caseWithout as caseOf } from "../../core/judge-protocol";
import type { CaseContext } from "../checks/case-context";
import type { RemoteFile } from "../api/judge-api";
import { runChecker } from "../checks/checker";
import { runInteractiveCase } from "../checks/interactive";
import type { CasePlan } from "../run/plan";
import { compareWith, JudgeFault, runCase, type CaseRun, type OutputJudge, type StagedFile } from "../run/steps";

/**
 * How the case's output is judged (its checker, else its comparison) and where its input is on the
 * host (none for an output-only case without one: its checker reads an empty input); or, when the config
 * version or the checker fails, the case's system error (the upload refuses a config naming a file the
 * version lacks, so that is a judge's fault).
 */
async function outputJudgeOf(
  c: CasePlan,
  ctx: CaseContext,
): Promise<{ judge: OutputJudge; inputHost: string | null } | CaseRun> {
  const input = ctx.config.get(c.inputPath);
  const expected = ctx.config.get(c.expectedPath);
  const inputNeeded = !c.submittedOutput;
  // Nothing compared (a run on the user's input): the program ending within its limits is all.
  const unjudged = c.compare.compare === "none" && !c.checker;
  if ((inputNeeded && !input) || (!expected && !unjudged))
    return {
      ratio: 0,
      report: caseOf("system_error", `the config version has no ${expected ? c.inputPath : c.expectedPath}`),
    };
  const inputHost = input ? await ctx.cached(input) : null;
  if (unjudged) return { judge: async () => ({ state: "accepted", ratio: 1, message: "" }), inputHost };
  const expectedHost = await ctx.cached(expected!);
  if (!c.checker) return { judge: compareWith(expectedHost, c.compare), inputHost };
  const built = await ctx.checkers.get(c.checker);
  if (!built.ok) return { ratio: 0, report: caseOf("system_error", `checker failure: ${built.message}`) };
  const { slot, tools, halt } = ctx;
  return {
    judge: (output) => runChecker(built.checker, inputHost, output, expectedHost, slot, tools, halt),
    inputHost,
  };
}

/**
 * One case: the program run in the slot, its output judged by the checker or the comparison; or, for an
 * interactive case, run with its interactor (interactive.ts).
 */
export async function runProgramCase(c: CasePlan, program: StagedFile[], ctx: CaseContext): Promise<CaseRun> {
  ctx.halt.throwIfAborted();
  try {
    if (c.interactor) return await runInteractiveCase(c, program, ctx);
    const how = await outputJudgeOf(c, ctx);
    if ("report" in how) return how;
    if (how.inputHost === null) throw new JudgeFault(`the config version has no ${c.inputPath}`);
    return await runCase(c, program, how.inputHost, how.judge, ctx.slot, ctx.tools, ctx.halt);
  } catch (error) {
    if (!(error instanceof JudgeFault)) throw error;
    return { ratio: 0, report: caseOf("system_error", error.message) };
  }
}

/**
 * Output-only: the submission's file the case names, judged as a program's output would be; a file
 * the submission lacks earns the case nothing.
 */
export async function judgeSubmittedOutput(
  c: CasePlan,
  submitted: Map<string, RemoteFile>,
  download: (file: RemoteFile) => Promise<Uint8Array>,
  ctx: CaseContext,
): Promise<CaseRun> {
  ctx.halt.throwIfAborted();
  const file = submitted.get(c.submittedOutput ?? "");
  if (!file) return { ratio: 0, report: caseOf("wrong_answer", `the submission has no ${c.submittedOutput}`) };
  const how = await outputJudgeOf(c, ctx);
  if ("report" in how) return how;
  const verdict = await how.judge(await download(file));
  const report = caseOf(verdict.state, verdict.message);
  return { ratio: verdict.ratio, report: { ...report, score: Math.floor(c.score * verdict.ratio + 1e-9) } };
}
