import { type OwnDates, windowFor } from "../problem-sets/problem-set-window";
import { PENALTY_VERDICTS } from "../problem-sets/problem-sets.schemas";
import { type LateRule, lateFactor } from "../problem-sets/late-penalty";

/**
 * A set's scoreboard by its rule (docs/contests.md), as a pure function of the set's records, its settings
 * and who is looking: homework's best or last score, ICPC's solved count and penalty, IOI's best of each
 * subtask, OI's last submission sealed until the end; a frozen board; late penalties by each user's own
 * due time. Hand-computed boards check it (tests/unit/board-rules.test.ts).
 */

export type BoardRule = "best" | "last" | "icpc" | "ioi" | "oi";

export interface BoardRecord {
  id: string;
  userId: string;
  username: string;
  problemId: string;
  /** accepted, rejected, or a state on the way there (pending on the board). */
  state: string;
  score: number;
  /** A rejected record's first case verdict that was not accepted (compile_error, wrong_answer, …). */
  verdict: string | null;
  createdAt: Date;
  /** IOI: the record's score per subtask (the cases in no subtask as one more); null: the record's score. */
  units: number[] | null;
}

export interface BoardSettings {
  rule: BoardRule;
  /** The contest's start (penalty time counts from it). */
  startAt: Date;
  unlockAt: Date | null;
  dueAt: Date | null;
  lockAt: Date | null;
  penaltyMinutes: number;
  penaltyVerdicts: ReadonlySet<string>;
  freezeAt: Date | null;
  unfrozenAt: Date | null;
  /** The late steps, read once (late-penalty.ts). */
  latePenalty: LateRule[];
  /** Each user's own due and lock times (extensions). */
  own: ReadonlyMap<string, OwnDates>;
}

export interface Viewer {
  userId: string;
  /** Sees the live board, unsealed (problemSet.viewHidden). */
  manages: boolean;
  now: Date;
}

export interface BoardCell {
  problemId: string;
  score: number;
  rawScore: number;
  state: string;
  recordId: string | null;
  late: boolean;
  submittedAt: Date | null;
  /** Judged submissions whose result this viewer sees. */
  submissions: number;
  attempts: number;
  pending: number;
  penaltyMinutes: number | null;
  /** ICPC, a solved problem: whole minutes from the start to the solve. */
  solvedMinute: number | null;
  firstToSolve: boolean;
  subtasks: number[] | null;
}

const JUDGED = new Set(["accepted", "rejected"]);

/** Whether the viewer may see this record's result now: not sealed (OI), not frozen, and judged. */
export function resultShown(record: BoardRecord, settings: BoardSettings, viewer: Viewer): boolean {
  if (!JUDGED.has(record.state)) return false;
  if (viewer.manages) return true;
  if (sealed(settings, viewer)) return false;
  if (record.userId === viewer.userId) return true;
  return !(frozen(settings, viewer) && record.createdAt.getTime() >= settings.freezeAt!.getTime());
}

/** The set's end: its lock time, else its due time. */
export const endOf = (window: { dueAt?: Date | null; lockAt?: Date | null }) => window.lockAt ?? window.dueAt ?? null;

/** OI: results are hidden from non-managers until the end (or until staff publish them: unfreeze). */
export const sealed = (settings: BoardSettings, viewer: Viewer) => {
  if (settings.rule !== "oi" || viewer.manages || settings.unfrozenAt) return false;
  const end = endOf(settings);
  return !end || viewer.now.getTime() < end.getTime();
};

/** A frozen board: from freezeAt until staff unfreeze it. */
export const frozen = (settings: Pick<BoardSettings, "freezeAt" | "unfrozenAt">, viewer: Pick<Viewer, "now">) =>
  !!settings.freezeAt &&
  viewer.now.getTime() >= settings.freezeAt.getTime() &&
  !(settings.unfrozenAt && settings.unfrozenAt.getTime() >= settings.freezeAt.getTime());

/** A record's score after the late penalty of its user's own due time, to the hundredth. */
export function scoreOf(record: BoardRecord, settings: BoardSettings, raw = record.score): number {
  const due = windowFor(settings, settings.own.get(record.userId)).dueAt ?? null;
  const factor = lateFactor(settings.latePenalty, due, record.createdAt);
  return Math.round(raw * factor * 100) / 100;
}

const isLate = (record: BoardRecord, settings: BoardSettings) => {
  const due = windowFor(settings, settings.own.get(record.userId)).dueAt;
  return !!due && record.createdAt.getTime() >= due.getTime();
};

/**
 * One user's cell for one problem: `records` are theirs for it, oldest first; `shown` says which results the
 * viewer sees (the others are pending: attempts counted, results not).
 */
export function cellOf(records: BoardRecord[], settings: BoardSettings, shown: (r: BoardRecord) => boolean): BoardCell {
  const rule = settings.rule;
  let considered = records;
  if (rule === "oi") {
    // The last submission before the user's own end; later ones (staff testing) do not count.
    const end = endOf(windowFor(settings, settings.own.get(records[0].userId)));
    const before = end ? records.filter((r) => r.createdAt.getTime() < end.getTime()) : records;
    considered = before.length > 0 ? [before[before.length - 1]] : [];
  }
  if (rule === "icpc") {
    const solvedAt = considered.findIndex((r) => shown(r) && r.state === "accepted");
    if (solvedAt >= 0) considered = considered.slice(0, solvedAt + 1);
  }
  const visible = considered.filter((r) => shown(r));
  const cell: BoardCell = {
    problemId: records[0].problemId,
    score: 0,
    rawScore: 0,
    state: visible.length === 0 ? "pending" : "rejected",
    recordId: null,
    late: false,
    submittedAt: null,
    submissions: visible.length,
    attempts: considered.length,
    pending: considered.length - visible.length,
    penaltyMinutes: null,
    solvedMinute: null,
    firstToSolve: false,
    subtasks: null,
  };
  const take = (record: BoardRecord, score: number, raw: number) =>
    Object.assign(cell, {
      score,
      rawScore: raw,
      state: record.state,
      recordId: record.id,
      late: isLate(record, settings),
      submittedAt: record.createdAt,
    });
  if (rule === "icpc") {
    const solved = visible.find((r) => r.state === "accepted");
    const last = visible.at(-1);
    if (last) take(solved ?? last, scoreOf(solved ?? last, settings), (solved ?? last).score);
    if (solved) {
      const wrong = visible.filter((r) => r !== solved && costsPenalty(r, settings)).length;
      const minutes = Math.floor((solved.createdAt.getTime() - settings.startAt.getTime()) / 60_000);
      cell.solvedMinute = Math.max(0, minutes);
      cell.penaltyMinutes = cell.solvedMinute + wrong * settings.penaltyMinutes;
    }
    return cell;
  }
  if (rule === "ioi") {
    const best: number[] = [];
    for (const record of visible)
      for (const [i, unit] of (record.units ?? [record.score]).entries())
        best[i] = Math.max(best[i] ?? 0, scoreOf(record, settings, unit));
    const last = visible.at(-1);
    if (last) {
      const raw = Math.max(0, ...visible.map((r) => r.score));
      take(last, Math.round(best.reduce((a, b) => a + b, 0) * 100) / 100, raw);
      cell.state = visible.some((r) => r.state === "accepted") ? "accepted" : last.state;
      cell.subtasks = best.map((b) => b ?? 0);
    }
    return cell;
  }
  // best, last, oi: one record counts, by its score after any late penalty.
  let chosen: BoardRecord | null = null;
  for (const record of visible)
    if (!chosen || rule !== "best" || scoreOf(record, settings) > scoreOf(chosen, settings)) chosen = record;
  if (chosen) take(chosen, scoreOf(chosen, settings), chosen.score);
  return cell;
}

/** ICPC: a rejected submission costs a penalty when its verdict is one the set counts. */
const costsPenalty = (record: BoardRecord, settings: BoardSettings) =>
  record.state === "rejected" && settings.penaltyVerdicts.has(record.verdict ?? "wrong_answer");

/** ICPC's default penalty verdicts: every rejection but a compile error or a judge failure. */
export const DEFAULT_PENALTY_VERDICTS: readonly string[] = PENALTY_VERDICTS.filter(
  (v) => v !== "compile_error" && v !== "system_error",
);
