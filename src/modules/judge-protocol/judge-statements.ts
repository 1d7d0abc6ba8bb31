import type { EntityManager } from "@mikro-orm/postgresql";
import { isoSql, row } from "../../db/statements";
import type { DomainAccess } from "../identity/access";
import {
  judgerMayMove,
  pendingCase,
  WAITING_SQL,
  WORKING_SQL,
  WORKING_STATES,
  type RecordState,
} from "../records/record-states";

/**
 * The judge protocol's common case, each in one statement (one round trip, one implicit transaction):
 * a judger with a first-time claim, a case report or a state report that passes every check. The
 * statement carries the checks in its WHERE clause; when it changes no row the caller takes the slow
 * path (judge.service.ts), which reads the record, decides again and raises the exact error. Judgers
 * call these tens of times per record; the ORM path costs several queries and ~1 ms of CPU each.
 */

/** Files as the claim lists them: by path, the order the ORM's `orderBy: { path: "asc" }` gives. */
const filesJson = (table: string, column: string, owner: string) =>
  `(select coalesce(json_agg(json_build_object('path', f.path, 'digest', f.digest, 'size', f.size) order by f.path), '[]')
      from ${table} f where f.${column} = ${owner})`;

const CLAIM_SQL = `
  with c as (
    update records set state = 'fetched', judger_id = ?, attempts = attempts + 1, updated_at = now(),
           lease_expires_at = now() + make_interval(secs => ?)
     where id = ? and domain_id = ? and task_id = ?::uuid and state in ${WAITING_SQL} and config_id is not null
     returning id, problem_id, config_id, commit_id, task_id, language, lease_expires_at)
  select c.id, c.problem_id, c.commit_id, c.task_id, c.language, ${isoSql("c.lease_expires_at")} as lease_expires_at,
         pc.id as config_id, pc.commit_id as config_commit_id, p.problem_group_id,
         ${filesJson("problem_config_files", "config_id", "c.config_id")} as config_files,
         ${filesJson("record_files", "record_id", "c.id")} as code_files
    from c left join problem_configs pc on pc.id = c.config_id left join problems p on p.id = c.problem_id`;

export interface ClaimedRow {
  id: string;
  problem_id: string | null;
  commit_id: string | null;
  task_id: string;
  language: string;
  lease_expires_at: string;
  config_id: string | null;
  config_commit_id: string | null;
  problem_group_id: string | null;
  config_files: { path: string; digest: string; size: number }[];
  code_files: { path: string; digest: string; size: number }[];
}

/** A first claim of a waiting record with its current task id, and what the answer lists; null: not claimed here. */
export function claimWaiting(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  taskId: string,
  leaseSeconds: number,
) {
  return row<ClaimedRow>(em, CLAIM_SQL, [access.userId, leaseSeconds, id, access.domainId, taskId]);
}

/**
 * assertHolder as SQL: held by the caller, for the named task when one is named, and a working record's
 * lease not yet run out. Parameters: judger, task id (or null) twice.
 */
const HELD = `judger_id = ? and (?::text is null or task_id::text = ?)
  and (state not in ${WORKING_SQL} or lease_expires_at is null or lease_expires_at > now())`;

/** The totals of a cases array (record-states.ts `aggregate`): scores and times add up, memory is the peak. */
const totals = (cases: string) => `
  score = (select coalesce(sum((c->>'score')::int), 0) from jsonb_array_elements(${cases}) c),
  time_ms = (select coalesce(sum((c->>'timeMs')::int), 0) from jsonb_array_elements(${cases}) c),
  memory_kb = (select greatest(0, coalesce(max((c->>'memoryKb')::int), 0)) from jsonb_array_elements(${cases}) c)`;

// The row is locked first (FOR UPDATE re-reads it after a concurrent report), so reports of
// different cases arriving together merge into the latest array and none is lost.
const CASE_SQL = `
  with cur as (
    select id, state, cases from records
     where id = ? and domain_id = ? and state not in ${WAITING_SQL} and ${HELD}
       and config_id is not distinct from ?::uuid
     for update),
  merged as (
    select cur.id, cur.state,
           jsonb_agg(case when i = ? then coalesce(cur.cases -> i, ?::jsonb) || ?::jsonb
                          else coalesce(cur.cases -> i, ?::jsonb) end order by i) as cases
      from cur, generate_series(0, greatest(jsonb_array_length(cur.cases) - 1, ?)) i
     group by cur.id, cur.state)
  update records r set cases = m.cases, ${totals("m.cases")}, updated_at = now(),
         lease_expires_at = case when m.state in ${WORKING_SQL} then now() + make_interval(secs => ?) else r.lease_expires_at end
    from merged m where r.id = m.id
  returning r.id`;

const PENDING = JSON.stringify(pendingCase());

/**
 * A case report merged into the record's cases (earlier cases padded), totals and lease updated; false
 * when a check fails. `configId` is the record's pinned version the caller checked the index against.
 */
export async function mergeCase(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  configId: string | null,
  report: { index: number; patch: object; taskId?: string; leaseSeconds: number },
): Promise<boolean> {
  const task = report.taskId?.toLowerCase() ?? null;
  const { index } = report;
  const done = await row(em, CASE_SQL, [
    id,
    access.domainId,
    access.userId,
    task,
    task,
    configId,
    index,
    PENDING,
    JSON.stringify(report.patch),
    PENDING,
    index,
    report.leaseSeconds,
  ]);
  return done !== null;
}

const FINAL = (to: string) => to === "accepted" || to === "rejected" || to === "failed";

/** The state report's statement for one target state (null: keep the state), counting acceptances in it. */
function stateSql(to: RecordState | null): string {
  const from = to === null ? WORKING_STATES : WORKING_STATES.filter((state) => judgerMayMove(state, to));
  if (from.length === 0) return "";
  const final = to !== null && FINAL(to);
  const update = `
    update records r set state = ${to === null ? "r.state" : `'${to}'`}, updated_at = now(),
           score = case when jsonb_array_length(r.cases) > 0 then t.score else coalesce(?::int, r.score) end,
           time_ms = case when jsonb_array_length(r.cases) > 0 then t.time_ms else coalesce(?::int, r.time_ms) end,
           memory_kb = case when jsonb_array_length(r.cases) > 0 then t.memory_kb else coalesce(?::int, r.memory_kb) end,
           ${
             final
               ? "judged_at = ?::timestamptz, lease_expires_at = null"
               : "lease_expires_at = now() + make_interval(secs => ?)"
           }
      from cur, lateral (select coalesce(sum((c->>'score')::int), 0) as score, coalesce(sum((c->>'timeMs')::int), 0) as time_ms,
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
      select id, cases from records
       where id = ? and domain_id = ? and state in (${from.map((s) => `'${s}'`).join(", ")}) and ${HELD}
       for update),
    upd as (${update})${counted}
    select id from upd`;
}

const stateStatements = new Map<RecordState | null, string>();

/**
 * A state report moving a working record forward (or keeping its state): totals from the cases when
 * there are any, else from the report; a final state stamps `judgedAt`, ends the lease and counts an
 * acceptance, all in one statement. False when a check fails or the record is already final.
 */
export async function moveState(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  report: {
    to: RecordState | null;
    score?: number;
    timeMs?: number;
    memoryKb?: number;
    judgedAt: Date;
    taskId?: string;
    leaseSeconds: number;
  },
): Promise<boolean> {
  let sql = stateStatements.get(report.to);
  if (sql === undefined) {
    sql = stateSql(report.to);
    stateStatements.set(report.to, sql);
  }
  if (sql === "") return false;
  const task = report.taskId?.toLowerCase() ?? null;
  const last = report.to !== null && FINAL(report.to) ? report.judgedAt : report.leaseSeconds;
  const done = await row(em, sql, [
    id,
    access.domainId,
    access.userId,
    task,
    task,
    report.score ?? null,
    report.timeMs ?? null,
    report.memoryKb ?? null,
    last,
  ]);
  return done !== null;
}
