import { readTimestamp } from "../../http/timestamps";
import { isoTime } from "../../http/schemas";
import { afterMs } from "./late-penalty";
import type { ProblemSet } from "./problem-set.entity";
import type { ProblemSetCreateInput, ProblemSetView } from "./problem-sets.schemas";

/**
 * A set's contest and homework rules (docs/contests.md): the scoreboard's rule, ICPC's penalty, the freeze,
 * the late steps, whether runs are allowed (docs/api.md "Runs") and the grade book shows stages, as a create
 * or an edit gives them (an absent field keeps what the set has), and as the set's view shows them.
 */
type RuleInput = Pick<
  ProblemSetCreateInput,
  "scoreboardRule" | "penaltyMinutes" | "penaltyVerdicts" | "freezeAt" | "latePenalty" | "runsAllowed" | "gradeStages"
>;

export function applyRules(set: ProblemSet, input: RuleInput): void {
  if (input.scoreboardRule !== undefined) set.scoreboardRule = input.scoreboardRule;
  if (input.penaltyMinutes !== undefined) set.penaltyMinutes = input.penaltyMinutes;
  if (input.runsAllowed !== undefined) set.runsAllowed = input.runsAllowed;
  if (input.gradeStages !== undefined) set.gradeStages = input.gradeStages;
  if (input.penaltyVerdicts !== undefined)
    set.penaltyVerdicts = input.penaltyVerdicts ? [...input.penaltyVerdicts] : null;
  if (input.freezeAt !== undefined)
    set.freezeAt = input.freezeAt === null ? null : readTimestamp(input.freezeAt, ["body", "freezeAt"]);
  if (input.latePenalty !== undefined)
    // In the order they begin, so that the list reads as the penalty grows.
    set.latePenalty = [...input.latePenalty].sort((a, b) => (afterMs(a.after) ?? 0) - (afterMs(b.after) ?? 0));
}

export function rulesView(
  set: ProblemSet,
): Pick<
  ProblemSetView,
  | "scoreboardRule"
  | "penaltyMinutes"
  | "penaltyVerdicts"
  | "freezeAt"
  | "unfrozenAt"
  | "finalizedAt"
  | "latePenalty"
  | "runsAllowed"
  | "gradeStages"
> {
  return {
    scoreboardRule: set.scoreboardRule as ProblemSetView["scoreboardRule"],
    penaltyMinutes: set.penaltyMinutes,
    penaltyVerdicts: set.penaltyVerdicts ?? null,
    freezeAt: isoTime(set.freezeAt ?? null),
    unfrozenAt: isoTime(set.unfrozenAt ?? null),
    finalizedAt: isoTime(set.finalizedAt ?? null),
    latePenalty: set.latePenalty ?? [],
    runsAllowed: set.runsAllowed,
    gradeStages: set.gradeStages,
  };
}
