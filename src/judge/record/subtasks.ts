import type { ResolvedSubtask } from "../../core/config-model/config-judging";
import type { CaseReport } from "../api/judge-api";
import { caseWithout } from "../../core/judge-protocol";
import type { CasePlan, JudgePlan } from "../run/plan";
import type { CaseRun } from "../run/steps";

/**
 * Runs a record's cases and scores them, subtasks included (docs/config-reference.md "Subtasks"). The server adds the
 * cases' scores up into the record's, so a subtask's score is reported on the last case it ran and 0
 * on its other cases: the sum is the subtask's total. A subtask whose dependencies were not all fully
 * accepted is skipped: its cases are never run, and are reported `canceled` saying which one failed.
 */

export interface CaseWork {
  run(c: CasePlan): Promise<CaseRun>;
  report(index: number, report: CaseReport): Promise<void>;
}

export type FinalState = "accepted" | "rejected" | "failed";

const canceled = (message: string): CaseReport => caseWithout("canceled", message);

/** Subtasks in an order that puts each after the ones it depends on (lowest index first; config.json has no cycle). */
export function subtaskOrder(subtasks: ResolvedSubtask[]): number[] {
  const waiting = subtasks.map((s) => new Set(s.dependsOn));
  const order: number[] = [];
  const done = new Set<number>();
  while (order.length < subtasks.length) {
    const next = subtasks.findIndex((_, i) => !done.has(i) && [...waiting[i]].every((d) => done.has(d)));
    if (next < 0) throw new Error("subtasks depend on each other in a cycle");
    order.push(next);
    done.add(next);
  }
  return order;
}

/** A subtask's score: all or nothing, or its score times the lowest share any of its cases earned. */
export function subtaskScore(subtask: ResolvedSubtask, runs: CaseRun[], scoring: JudgePlan["scoring"]): number {
  if (scoring === "min") return Math.floor(subtask.score * Math.min(...runs.map((r) => r.ratio)) + 1e-9);
  return runs.every((r) => r.report.state === "accepted") ? subtask.score : 0;
}

/** Cases in no subtask first, in order, then each subtask after its dependencies; the record's final state. */
export async function judgeCases(plan: JudgePlan, work: CaseWork): Promise<FinalState> {
  const states: string[] = [];
  const grouped = new Set(plan.subtasks.flatMap((s) => s.cases));
  for (const c of plan.cases) {
    if (grouped.has(c.index)) continue;
    const { report } = await work.run(c);
    await work.report(c.index, report);
    states.push(report.state);
  }
  const fullyAccepted = new Set<number>();
  for (const i of subtaskOrder(plan.subtasks)) {
    const subtask = plan.subtasks[i];
    const blocker = subtask.dependsOn.find((d) => !fullyAccepted.has(d));
    if (blocker !== undefined) {
      const why = `skipped: subtask ${i} depends on subtask ${blocker}, which was not fully accepted`;
      for (const index of subtask.cases) await work.report(index, canceled(why));
      states.push("canceled");
      continue;
    }
    const runs: CaseRun[] = [];
    for (const [k, index] of subtask.cases.entries()) {
      const run = await work.run(plan.cases[index]);
      runs.push(run);
      const last = k === subtask.cases.length - 1;
      await work.report(index, { ...run.report, score: last ? subtaskScore(subtask, runs, plan.scoring) : 0 });
      states.push(run.report.state);
    }
    if (runs.every((r) => r.report.state === "accepted")) fullyAccepted.add(i);
  }
  if (states.includes("system_error")) return "failed";
  return states.every((s) => s === "accepted") ? "accepted" : "rejected";
}
