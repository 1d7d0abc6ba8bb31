import { type CaseReport, caseWithout } from "../../core/judge-protocol";
/**
 * The record state machine. Waiting states hold a task in the queue; a claim moves the record to
 * `fetched`; the judger then moves it forward only, and a final state is never left by a judger. A
 * rejudge (staff, from any state) starts the record over under a new task id.
 *
 *   processing | queueing | retrying ──claim──► fetched → compiling → running → judging → accepted | rejected | failed
 *          ▲                                      │ (lease lapses, attempts left: new task id)
 *          └──────────────────────────────────────┘
 */
export const RECORD_STATES = [
  "processing",
  "queueing",
  "retrying",
  "fetched",
  "compiling",
  "running",
  "judging",
  "accepted",
  "rejected",
  "failed",
] as const;
export type RecordState = (typeof RECORD_STATES)[number];

export const WAITING_STATES: readonly RecordState[] = ["processing", "queueing", "retrying"];
export const WORKING_STATES: readonly RecordState[] = ["fetched", "compiling", "running", "judging"];
export const FINAL_STATES: readonly RecordState[] = ["accepted", "rejected", "failed"];

export { CASE_RESULTS, type CaseResult } from "../../core/judge-protocol";

const sqlList = (states: readonly RecordState[]) => `(${states.map((s) => `'${s}'`).join(", ")})`;
/** The state groups as SQL lists, for the conditional UPDATEs that move records between them. */
export const WAITING_SQL = sqlList(WAITING_STATES);
export const WORKING_SQL = sqlList(WORKING_STATES);

export const isWaiting = (state: string) => WAITING_STATES.includes(state as RecordState);
export const isWorking = (state: string) => WORKING_STATES.includes(state as RecordState);
export const isFinal = (state: string) => FINAL_STATES.includes(state as RecordState);

const RANK: Record<RecordState, number> = {
  processing: 0,
  queueing: 0,
  retrying: 0,
  fetched: 1,
  compiling: 2,
  running: 3,
  judging: 4,
  accepted: 5,
  rejected: 5,
  failed: 5,
};

/**
 * Whether a judger may move a record from `from` to `to`: forward only, a report of the current state
 * is a harmless repeat, and a final state is final (repeating it is fine, changing it is not).
 */
export function judgerMayMove(from: RecordState, to: RecordState): boolean {
  if (to === from) return true;
  if (isWaiting(to) || isFinal(from)) return false;
  return RANK[to] > RANK[from];
}

/** A case as stored (and shown): the judge's report of it (core/judge-protocol.ts). */
export type StoredCase = CaseReport;

/**
 * One earlier judgement of a record, kept when a rejudge replaced it (oldest first in `history`): the
 * result, the config version it was judged with, and when and by whom it was rejudged. Timestamps are
 * stored as they are shown (isoSql).
 */
export interface RecordHistoryEntry {
  state: RecordState;
  score: number;
  timeMs: number;
  memoryKb: number;
  problemConfigId: string | null;
  judgedAt: string | null;
  rejudgedAt: string;
  rejudgedBy: string | null;
}

export const pendingCase = (): StoredCase => caseWithout("etc");

/** Kept per case output stream; a judger may send more, the rest is cut with a marker. */
export const MAX_CASE_OUTPUT = 64 * 1024;

export function capOutput(text: string): string {
  if (text.length <= MAX_CASE_OUTPUT) return text;
  return `${text.slice(0, MAX_CASE_OUTPUT)}\n… [${text.length - MAX_CASE_OUTPUT} more characters cut]`;
}

/**
 * The record's totals from its cases, whatever order the reports came in: score and time add up,
 * memory is the peak of any case.
 */
export function aggregate(cases: StoredCase[]): { score: number; timeMs: number; memoryKb: number } {
  let score = 0;
  let timeMs = 0;
  let memoryKb = 0;
  for (const c of cases) {
    score += c.score;
    timeMs += c.timeMs;
    memoryKb = Math.max(memoryKb, c.memoryKb);
  }
  return { score, timeMs, memoryKb };
}
