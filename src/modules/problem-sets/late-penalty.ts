/**
 * Homework late penalties (docs/contests.md "Late penalties"): steps "from this long after the due time,
 * multiply the score by this factor", as Hydro's penaltyRules and Moodle's late-submission penalties; the
 * latest step that has begun applies, and before the first one (or without a due time) nothing does.
 */

export interface LateStep {
  /** How long after the due time: `0h`, `90m`, `1.5d`, `2w`, `30s`. */
  after: string;
  /** The score is multiplied by it: from 0 to 1. */
  factor: number;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
export const LATE_AFTER = /^(\d{1,6}(?:\.\d{1,3})?)(s|m|h|d|w)$/;

/** A step's `after` in milliseconds, or null when it is not a duration this reads. */
export function afterMs(after: string): number | null {
  const match = LATE_AFTER.exec(after.trim());
  return match ? Math.round(Number(match[1]) * UNITS[match[2]]) : null;
}

/** Steps read once for a board: from when (ms after the due time) and the factor, the earliest first. */
export interface LateRule {
  fromMs: number;
  factor: number;
}

export function lateRules(steps: readonly LateStep[]): LateRule[] {
  return steps
    .flatMap((step) => {
      const fromMs = afterMs(step.after);
      return fromMs === null ? [] : [{ fromMs, factor: step.factor }];
    })
    .sort((a, b) => a.fromMs - b.fromMs);
}

/** The factor a submission at `at` earns, given the user's own due time: the latest step that has begun. */
export function lateFactor(rules: readonly LateRule[], dueAt: Date | null, at: Date): number {
  if (!dueAt || rules.length === 0) return 1;
  const late = at.getTime() - dueAt.getTime();
  let factor = 1;
  for (const rule of rules) if (rule.fromMs <= late) factor = rule.factor;
  return factor;
}
