import type { EntityManager } from "@mikro-orm/postgresql";
import { isoSql, row } from "../../db/statements";
import { FINAL_STATES } from "../records/record-states";
import type { QueuedTask } from "../judge-tasks/judge-queue";

/**
 * A rejudge as one statement (one transaction) per record or per batch of a bulk rejudge:
 *  - the matching records are locked (FOR UPDATE re-reads a row a judger changed meanwhile);
 *  - each gets a config version to pin: the problem's latest (only when it still has the record's
 *    language) or, on request, the record's own; a record with none to pin is left as it is;
 *  - it waits again under a fresh task id, unclaimed, attempts, cases and totals cleared, so a judger
 *    still working on the old task is refused from its next report on (the judge's holder checks);
 *  - a judged record's result moves into its `history` first;
 *  - an accepted record no longer counts in `numAccept` of its problem and set (a new acceptance counts
 *    again, in the state report's statement), so the counters stay exact.
 */

const FINAL_SQL = `(${FINAL_STATES.map((s) => `'${s}'`).join(", ")})`;

/** Which records one statement takes, its SQL and parameters: `r` is the records table. */
export interface Selection {
  where: string;
  values: unknown[];
  /** The batch bound of a bulk rejudge (keyset on created_at, id); 1 for a single record. */
  limit: number;
}

export interface RejudgeOptions {
  /** Pin the record's own config version instead of the problem's latest. */
  ownConfig: boolean;
  /** The priority of records that were judged; a waiting or working record keeps its own unless `force`. */
  priority: number;
  force: boolean;
  actorId: string;
}

const rejudgeSql = (where: string, limit: number) => `
  with cur as (
    select r.id, r.created_at, r.state, r.score, r.time_ms, r.memory_kb, r.config_id, r.judged_at,
           r.problem_id, r.problem_set_id, r.language
      from records r where ${where}
     order by r.created_at, r.id limit ${limit}
       for update),
  target as (
    select cur.id, case when ?::boolean then cur.config_id
                        when p.languages @> jsonb_build_array(cur.language) then latest.id end as config_id
      from cur left join problems p on p.id = cur.problem_id
      left join lateral (select c.id from problem_configs c where c.problem_id = p.id
                          order by c.version desc limit 1) latest on true),
  upd as (
    update records r set state = 'queueing', task_id = gen_random_uuid(), judger_id = null, lease_expires_at = null,
           attempts = 0, score = 0, time_ms = 0, memory_kb = 0, cases = '[]'::jsonb, judged_at = null,
           updated_at = now(),
           config_id = target.config_id,
           priority = case when cur.state in ${FINAL_SQL} or ?::boolean then ?::int else r.priority end,
           history = case when cur.state not in ${FINAL_SQL} then r.history
             else r.history || jsonb_build_array(jsonb_build_object(
               'state', cur.state, 'score', cur.score, 'timeMs', cur.time_ms, 'memoryKb', cur.memory_kb,
               'problemConfigId', cur.config_id, 'judgedAt', ${isoSql("cur.judged_at")},
               'rejudgedAt', ${isoSql("now()")}, 'rejudgedBy', ?::uuid)) end
      from cur join target on target.id = cur.id
     where r.id = cur.id and target.config_id is not null
    returning r.id, r.domain_id, r.task_id, r.priority, cur.state as previous, cur.problem_id, cur.problem_set_id),
  p as (
    update problems pr set num_accept = pr.num_accept - a.n
      from (select problem_id, count(*) as n from upd where previous = 'accepted' group by problem_id) a
     where pr.id = a.problem_id),
  s as (
    update problem_sets ps set num_accept = ps.num_accept - a.n
      from (select problem_set_id, count(*) as n from upd where previous = 'accepted' group by problem_set_id) a
     where ps.id = a.problem_set_id)
  select (select count(*)::int from cur) as matched,
         (select json_build_object('at', created_at::text, 'id', id) from cur
           order by created_at desc, id desc limit 1) as last,
         coalesce((select json_agg(json_build_object(
                            'recordId', id, 'domainId', domain_id, 'taskId', task_id, 'priority', priority))
                     from upd), '[]') as queued`;

export interface RejudgeResult {
  /** Records the selection matched (and locked). */
  matched: number;
  /** The last of them in (created_at, id) order, where the next batch starts. */
  last: { at: string; id: string } | null;
  /** The tasks to enqueue, one per record rejudged. */
  queued: QueuedTask[];
}

/** Rejudges the selected records (see above); the caller enqueues `queued` after this returns. */
export async function rejudgeSelected(
  em: EntityManager,
  selection: Selection,
  options: RejudgeOptions,
): Promise<RejudgeResult> {
  const result = await row<RejudgeResult>(em, rejudgeSql(selection.where, selection.limit), [
    ...selection.values,
    options.ownConfig,
    options.force,
    options.priority,
    options.actorId,
  ]);
  return result!;
}
