import type { RecordHistoryEntry } from "../judging/record-states";
import { isFinal, isWaiting } from "../judging/record-states";
import type { CcsJudgementView, CcsRunView } from "./ccs.schemas";
import { ccsTime } from "./ccs.schemas";
import * as ids from "./ccs-ids";

/**
 * A record as the Contest API's judgements and runs (ccs-contest.ts reads it, ccs.sql.ts CCS_RECORDS_SQL): a
 * judgement per judging (a rejudge starts the next), the runs of the current one.
 */
export interface RecordRow {
  id: string;
  team: string | null;
  problem: string;
  language: string;
  state: string;
  score: number;
  created_at: Date;
  judged_at: Date | null;
  updated_at: Date;
  history: RecordHistoryEntry[];
  cases: { state: string; timeMs: number }[];
}

/** Each object keeps the id of the record it came from (not sent): a resumed feed picks by it. */
type Judgement = CcsJudgementView & { record: string };
type Run = CcsRunView & { record: string };

/** A record's judgements (each rejudge replaced one: its history) and the current one's runs. */
export function judgementsOf(
  row: RecordRow,
  rel: (when: Date) => string,
  snapshot: { judgements: Judgement[]; runs: Run[] },
  points: boolean,
): void {
  let begun = row.created_at;
  for (const [n, old] of row.history.entries()) {
    const end = old.judgedAt ? new Date(old.judgedAt) : null;
    if (end && isFinal(old.state))
      snapshot.judgements.push({
        record: row.id,
        id: ids.judgementId(row.id, n),
        submission_id: row.id,
        judgement_type_id: ids.recordType(old.state, null),
        ...(points ? { score: old.score } : {}),
        start_time: ccsTime(begun),
        start_contest_time: rel(begun),
        end_time: ccsTime(end),
        end_contest_time: rel(end),
      });
    begun = new Date(old.rejudgedAt);
  }
  if (isWaiting(row.state)) return;
  const n = row.history.length;
  const judged = isFinal(row.state) && row.judged_at !== null;
  const failure = row.cases.find((c) => c.state !== "accepted")?.state ?? null;
  const runTimes = row.cases.map((c) => c.timeMs ?? 0);
  snapshot.judgements.push({
    record: row.id,
    id: ids.judgementId(row.id, n),
    submission_id: row.id,
    start_time: ccsTime(begun),
    start_contest_time: rel(begun),
    ...(judged
      ? {
          judgement_type_id: ids.recordType(row.state, failure),
          ...(points ? { score: row.score } : {}),
          end_time: ccsTime(row.judged_at!),
          end_contest_time: rel(row.judged_at!),
          max_run_time: Math.max(0, ...runTimes) / 1000,
        }
      : {}),
  });
  // One time per run that does not move with each case report (the judgement's start, then its end): a feed
  // resends a run only when its result changes.
  const at = judged ? row.judged_at! : begun;
  for (const [i, c] of row.cases.entries()) {
    const type = ids.caseType(c.state);
    if (!type) continue;
    snapshot.runs.push({
      record: row.id,
      id: ids.runId(row.id, n, i + 1),
      judgement_id: ids.judgementId(row.id, n),
      ordinal: i + 1,
      judgement_type_id: type,
      time: ccsTime(at),
      contest_time: rel(at),
      run_time: (c.timeMs ?? 0) / 1000,
    });
  }
}
