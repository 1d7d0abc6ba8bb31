import { isoSql } from "../../db/statements";
import {
  FINAL_STATES,
  judgerMayMove,
  RECORD_STATES,
  type RecordState,
  WAITING_STATES,
  WORKING_STATES,
} from "./record-states";

/**
 * Every statement that changes a record's state, and only those (record-transitions.ts runs them). Each
 * carries its checks in its WHERE clause, built from the transition table, so that a race between
 * judgers, reconcilers and staff is decided by PostgreSQL's row lock: the statement changes the row or
 * it changes nothing. The state lists come from `from(kind)` of record-transitions.ts.
 */
export type StateList = readonly RecordState[];
const list = (states: StateList) => `(${states.map((s) => `'${s}'`).join(", ")})`;

/** Files as the claim lists them: by path, the order the ORM's `orderBy: { path: "asc" }` gives. */
const filesJson = (table: string, column: string, owner: string) =>
  `(select coalesce(json_agg(json_build_object('path', f.path, 'digest', f.digest, 'size', f.size)
                    order by f.path), '[]')
      from ${table} f where f.${column} = ${owner})`;

/** Claim: a waiting record with its current task id, leased to the judger; the answer lists its files. */
export const claimSql = (waiting: StateList) => `
  with c as (
    update records set state = 'fetched', judger_id = ?, attempts = attempts + 1, updated_at = now(),
           lease_expires_at = now() + make_interval(secs => ?)
     where id = ? and domain_id = ? and task_id = ?::uuid and state in ${list(waiting)} and config_id is not null
     returning id, problem_id, config_id, commit_id, task_id, language, lease_expires_at)
  select c.id, c.problem_id, c.commit_id, c.task_id, c.language, ${isoSql("c.lease_expires_at")} as lease_expires_at,
         pc.id as config_id, pc.commit_id as config_commit_id, p.problem_group_id,
         ${filesJson("problem_config_files", "config_id", "c.config_id")} as config_files,
         ${filesJson("record_files", "record_id", "c.id")} as code_files
    from c left join problem_configs pc on pc.id = c.config_id left join problems p on p.id = c.problem_id`;

/**
 * The holder's checks: held by the caller, for the named task when one is named, and a working record's
 * lease not yet run out. Parameters: judger, task id (or null) twice.
 */
const held = (working: StateList) => `judger_id = ? and (?::text is null or task_id::text = ?)
  and (state not in ${list(working)} or lease_expires_at is null or lease_expires_at > now())`;

/**
 * A score after the record's stages (docs/config-reference.md "Stages"): 0 when a stage found something
 * forbidden, else the tests' score less every stage's deduction, never below 0.
 */
export const afterStages = (score: string, stages: string) => `
  case when exists (select 1 from jsonb_array_elements(${stages}) s where (s->>'forbidden')::boolean) then 0
       else greatest(0, ${score} - (select coalesce(sum((s->>'deduction')::int), 0)
                                      from jsonb_array_elements(${stages}) s)) end`;

/** The totals of a cases array (record-states.ts `aggregate`): scores and times add up, memory is the peak. */
const totals = (cases: string, stages: string) => `
  score = ${afterStages(`(select coalesce(sum((c->>'score')::int), 0) from jsonb_array_elements(${cases}) c)`, stages)},
  time_ms = (select coalesce(sum((c->>'timeMs')::int), 0) from jsonb_array_elements(${cases}) c),
  memory_kb = (select greatest(0, coalesce(max((c->>'memoryKb')::int), 0)) from jsonb_array_elements(${cases}) c)`;

/**
 * Case reports merged into the cases (earlier ones padded), totals and lease updated: one report, or a
 * judge's batch of them in one statement. The patches come as one JSON object keyed by case index. The
 * row is locked first (FOR UPDATE re-reads it after a concurrent report), so reports of different cases
 * arriving together merge into the latest array and none is lost.
 * Parameters: record, domain, judger, task twice, config, pending case, patches, highest index, lease.
 */
export const caseSql = (waiting: StateList, working: StateList) => `
  with cur as (
    select id, state, cases from records
     where id = ? and domain_id = ? and state not in ${list(waiting)} and ${held(working)}
       and config_id is not distinct from ?::uuid
     for update),
  given as (select ?::jsonb as pending, ?::jsonb as patches),
  merged as (
    select cur.id, cur.state,
           jsonb_agg(coalesce(cur.cases -> i, g.pending) || coalesce(g.patches -> i::text, '{}'::jsonb)
                     order by i) as cases
      from cur, given g, generate_series(0, greatest(jsonb_array_length(cur.cases) - 1, ?)) i
     group by cur.id, cur.state)
  update records r set cases = m.cases, ${totals("m.cases", "r.stages")}, updated_at = now(),
         lease_expires_at = case when m.state in ${list(working)} then now() + make_interval(secs => ?)
                                 else r.lease_expires_at end
    from merged m where r.id = m.id
  returning r.id`;

/** A state report's statement for one target (null: keep the state), counting an acceptance in it. */
export function reportSql(to: RecordState | null, working: StateList, final: StateList): string {
  const from = to === null ? working : working.filter((state) => judgerMayMove(state, to));
  if (from.length === 0) return "";
  const ends = to !== null && final.includes(to);
  const fromTotals = (column: string, total = `t.${column}`) =>
    `${column} = case when jsonb_array_length(r.cases) > 0 then ${total} else coalesce(?::int, r.${column}) end`;
  const lease = ends
    ? "judged_at = ?::timestamptz, lease_expires_at = null"
    : "lease_expires_at = now() + make_interval(secs => ?)";
  const update = `
    update records r set state = ${to === null ? "r.state" : `'${to}'`}, updated_at = now(), stages = cur.stages,
           ${fromTotals("score", afterStages("t.score", "cur.stages"))}, ${fromTotals("time_ms")},
           ${fromTotals("memory_kb")},
           ${lease}
      from cur, lateral (select coalesce(sum((c->>'score')::int), 0) as score,
                                coalesce(sum((c->>'timeMs')::int), 0) as time_ms,
                                greatest(0, coalesce(max((c->>'memoryKb')::int), 0)) as memory_kb
                           from jsonb_array_elements(cur.cases) c) t
     where r.id = cur.id
    returning r.id, r.problem_id, r.problem_set_id`;
  const counted =
    to === "accepted"
      ? `,
    p as (update problems set num_accept = num_accept + 1 where id = (select problem_id from upd)),
    s as (update problem_sets set num_accept = num_accept + 1 where id = (select problem_set_id from upd))`
      : "";
  return `
    with cur as (
      select id, cases, coalesce(?::jsonb, stages) as stages from records
       where id = ? and domain_id = ? and state in ${list(from)} and ${held(working)}
       for update),
    upd as (${update})${counted}
    select id from upd`;
}

/** Back to the queue under a new task id (the first parameter), the attempt's results cleared. */
const REQUEUE = `state = 'queueing', task_id = ?, judger_id = null, lease_expires_at = null, updated_at = now(),
  score = 0, time_ms = 0, memory_kb = 0, cases = '[]'::jsonb, stages = '[]'::jsonb`;

/** The holder gives the record back: its attempt does not count. */
export const releaseSql = (working: StateList) => `
  update records set ${REQUEUE}, attempts = greatest(attempts - 1, 0)
   where id = ? and domain_id = ? and judger_id = ? and task_id::text = ? and state in ${list(working)}
     and lease_expires_at > now()
  returning language, priority`;

/** A lapsed lease with attempts left: back to the queue. */
export const requeueLapsedSql = (working: StateList) => `
  update records set ${REQUEUE}
   where id = ? and state in ${list(working)} and lease_expires_at <= now() returning id, domain_id, priority`;

/** A lapsed lease with no attempt left: failed, with one case saying why. */
export const exhaustSql = (working: StateList) => `
  update records set state = 'failed', judger_id = null, lease_expires_at = null, judged_at = now(), updated_at = now(),
         score = 0, time_ms = 0, memory_kb = 0, cases = ?::jsonb, stages = '[]'::jsonb
   where id = ? and state in ${list(working)} and lease_expires_at <= now() returning id, domain_id`;

/** A waiting record without a live job: queued again under a new task id. */
export const reenqueueSql = (waiting: StateList) => `
  update records set state = 'queueing', task_id = ?, updated_at = now()
   where id = ? and state in ${list(waiting)} and task_id is not distinct from ? returning id, domain_id, priority`;

/**
 * A rejudge of the records `where` selects (bounded by `limit`, keyset on created_at, id), each locked,
 * pinned to a config version (the problem's latest when it still has the language, or on request its
 * own; none: left as it is), waiting again under a fresh task id with its attempt cleared; a judged
 * record's result moves into its `history`, and an acceptance no longer counts in `numAccept`.
 */
export const rejudgeSql = (where: string, limit: number, final: StateList) => `
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
           attempts = 0, score = 0, time_ms = 0, memory_kb = 0, cases = '[]'::jsonb, stages = '[]'::jsonb,
           judged_at = null, updated_at = now(),
           config_id = target.config_id,
           priority = case when cur.state in ${list(final)} or ?::boolean then ?::int else r.priority end,
           history = case when cur.state not in ${list(final)} then r.history
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

/**
 * Every statement this file can produce, for tests/db/statements-prepare.test.ts: each builder over the
 * state groups, a report for every target (none: the state kept), and a rejudge of one record (the
 * rejudge's own selections are in judging.sql.ts's samples).
 */
export const SAMPLE_STATEMENTS: string[] = [
  claimSql(WAITING_STATES),
  caseSql(WAITING_STATES, WORKING_STATES),
  ...[null, ...RECORD_STATES].map((to) => reportSql(to, WORKING_STATES, FINAL_STATES)).filter((sql) => sql !== ""),
  releaseSql(WORKING_STATES),
  requeueLapsedSql(WORKING_STATES),
  exhaustSql(WORKING_STATES),
  reenqueueSql(WAITING_STATES),
  rejudgeSql("r.id = ?", 1, FINAL_STATES),
];
