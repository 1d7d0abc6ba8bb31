import { readFile } from "node:fs/promises";
import type { Logger } from "../../core/logger";
import { isUnreachable, Refused, type Claim, type JudgeApi, type JudgeTask, type RemoteFile } from "../api/judge-api";
import { caseWithout } from "../../core/judge-protocol";
import type { FileCache } from "../cache/file-cache";
import { CheckerShelf } from "../checks/checker";
import { normalisePath, planJudging } from "../run/plan";
import type { Slot } from "../sandbox/slots";
import { JudgeFault, type CompileResult, type Toolbox } from "../run/steps";
import type { CaseContext } from "../checks/case-context";
import { judgeSubmittedOutput, runProgramCase } from "./case-runs";
import { compileProgram } from "../cache/program-cache";
import { judgeCases } from "./subtasks";
import { CaseBatches } from "../api/case-batches";
import { presetGap } from "../toolchains";
import { StageBook, stageSources } from "../stages/stage-book";
import type { StageReport } from "../../core/judge-protocol";

export interface EngineDeps {
  api: JudgeApi;
  cache: FileCache;
  tools: Toolbox;
  logger: Logger;
}

/** What became of a task: judged, not ours (another judger, a re-queue), given back on stop, or lost. */
export type Outcome = "judged" | "refused" | "released" | "lost";

const caseOf = caseWithout;

/**
 * Judges one task under the protocol's rules: claim it (another judger may have won), keep the lease
 * alive, compile and run every case in order in the slot's sandbox, report each case, then the final
 * state. On `stop` the record is given back; a refused report means the record was taken from us.
 */
export async function judgeTask(task: JudgeTask, slot: Slot, deps: EngineDeps, stop: AbortSignal): Promise<Outcome> {
  const logger = deps.logger.child({ recordId: task.recordId, taskId: task.taskId });
  let claim: Claim;
  try {
    claim = await deps.api.claim(task);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    logger.info("task not claimed", { reason: error.message });
    return "refused";
  }
  const lost = new AbortController();
  const keeper = keepLease(deps.api, task, claim, lost, logger);
  const halt = AbortSignal.any([stop, lost.signal]);
  try {
    const state = await judgeClaimed(task, claim, slot, deps, halt);
    logger.info("record judged", { state });
    return "judged";
  } catch (error) {
    if (stop.aborted) {
      await deps.api
        .release(task)
        .catch((e) => logger.warn("could not give the record back; its lease will lapse", { error: e }));
      return "released";
    }
    if (isUnreachable(error)) {
      // The API went away (a restart, a network fault): nothing of this attempt is reported, least of all
      // a failure. Given back if the API returns in time, else its lease returns it to the queue; either
      // way its partial results are cleared and it is judged again.
      logger.warn("the API did not answer; the record is given back to the queue", { error });
      void deps.api.release(task).catch(() => {});
      return "lost";
    }
    if (lost.signal.aborted || error instanceof Refused) {
      logger.warn("the record was taken from this judge", {
        reason: error instanceof Error ? error.message : String(error),
      });
      return "lost";
    }
    logger.error("judging failed", { error });
    await failRecord(deps.api, task, error).catch((e) =>
      logger.warn("could not report the failure; the lease will lapse", { error: e }),
    );
    return "judged";
  } finally {
    clearInterval(keeper);
  }
}

/** Longest pause between renewals: a third of the default lease, whatever the clocks say. */
const RENEW_AT_MOST_MS = 20_000;

/**
 * Renews the lease well before it ends with a report that names no state (a claim is one attempt's alone:
 * a second is refused), so a slow case never loses it. The lease's length is read against this machine's
 * clock, so the pause is capped in case it is wrong.
 */
function keepLease(api: JudgeApi, task: JudgeTask, claim: Claim, lost: AbortController, logger: Logger) {
  const everyMs = Math.min(RENEW_AT_MOST_MS, Math.max(500, (Date.parse(claim.leaseExpiresAt) - Date.now()) / 3));
  return setInterval(() => {
    api.report(task, {}).catch((error) => {
      if (error instanceof Refused) lost.abort();
      else logger.warn("lease renewal failed; retrying", { error });
    });
  }, everyMs);
}

/**
 * The failure as its record shows it: a JudgeFault says what the judge could not do, in words of ours;
 * anything else (a file system's error, with a path of the judge machine in it) is only in the judge's log.
 */
export function failureMessage(error: unknown): string {
  const said = error instanceof JudgeFault ? error.message : "an error of the judge machine (its log has the details)";
  return `The judge failed (not the program): ${said}`;
}

async function failRecord(api: JudgeApi, task: JudgeTask, error: unknown): Promise<void> {
  const message = failureMessage(error);
  await api.reportCase(task, 0, caseOf("system_error", message));
  await api.report(task, { state: "failed", judgedAt: new Date().toISOString() });
}

async function judgeClaimed(
  task: JudgeTask,
  claim: Claim,
  slot: Slot,
  deps: EngineDeps,
  halt: AbortSignal,
): Promise<string> {
  const { api, cache, tools } = deps;
  const config = new Map(claim.configFiles.map((f) => [normalisePath(f.path), f]));
  const cached = (file: RemoteFile) => cache.path(file, (f) => api.download(f));
  const configJson = config.get("config.json");
  if (!configJson) throw new JudgeFault("the config version has no config.json");
  const plan = planJudging(await readFile(await cached(configJson)), claim.language, tools.settings);
  if (!plan) throw new JudgeFault(`the config version has no language "${claim.language}"`);
  // The judge machine's fault, said plainly: not a compile error charged to the program.
  const gap = plan.preset && presetGap(plan.preset);
  if (gap) throw new JudgeFault(`this judge machine cannot run the ${plan.presetName} preset: ${gap}`);
  const { logger } = deps;
  // Output-only: nothing to compile or run (presets.ts).
  const outputOnly = plan.preset?.outputOnly === true;
  let compiled: CompileResult = { ok: true, program: [] };
  if (!outputOnly) {
    await api.report(task, { state: "compiling" });
    compiled = await compileProgram({ plan, claim, config, cached, api, cache, slot, tools, logger, signal: halt });
  }
  // The stages before the tests, then (below) those after: each group reported as it ends, all in config order.
  const stages = new StageBook(plan, compiled.ok, () => stageSources(plan, claim, config, cached));
  const stageDeps = { config, cached, cache, slot, tools, logger, signal: halt };
  const batches = new CaseBatches((cases) => api.reportCases(task, cases));
  try {
    if (!compiled.ok) {
      for (const c of plan.cases)
        batches.add(c.index, caseOf(compiled.state, c.index === 0 ? compiled.message : "see case 0"));
      await batches.flush();
      const state = compiled.state === "system_error" ? "failed" : "rejected";
      return finish(api, task, state, await stages.run(["before-tests", "after-tests"], stageDeps));
    }
    await api.report(task, { state: "running", ...(await stages.report(["before-tests"], stageDeps)) });
    const checkers = new CheckerShelf({ config, cached, cache, slot, tools, logger, signal: halt });
    const ctx: CaseContext = { config, cached, checkers, slot, tools, halt };
    const submitted = new Map(claim.codeFiles.map((f) => [normalisePath(f.path), f]));
    const final = await judgeCases(plan, {
      run: (c) =>
        outputOnly
          ? judgeSubmittedOutput(c, submitted, (f) => api.download(f), ctx)
          : runProgramCase(c, compiled.program, ctx),
      report: async (index, report) => {
        halt.throwIfAborted();
        batches.add(index, report);
      },
    });
    // Every case is in before the final state: the totals come from them.
    await batches.flush();
    return finish(api, task, final, await stages.run(["after-tests"], stageDeps));
  } finally {
    batches.discard();
  }
}

async function finish(api: JudgeApi, task: JudgeTask, tests: string, stages?: StageReport[]): Promise<string> {
  // A forbidden pattern (its score 0, stages/deduct.ts) is not an acceptance, whatever the tests said.
  const state = tests === "accepted" && stages?.some((stage) => stage.forbidden) ? "rejected" : tests;
  await api.report(task, { state, judgedAt: new Date().toISOString(), ...(stages?.length ? { stages } : {}) });
  return state;
}
