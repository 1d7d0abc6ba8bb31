import { FINAL_STATES, WAITING_SQL, WORKING_SQL } from "./record-states";
import { rejudgeSql } from "./record-transitions.sql";

/**
 * The judging wing's hand-written SQL that moves no record: the reads of task hand-out, the reconciler
 * and the protocol, and the selections a rejudge runs on. Statements that change a record's state are
 * in record-transitions.sql.ts. The code that runs each statement imports its text from here;
 * tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/**
 * The oldest waiting task of the highest priority not offered to another poller (judge-tasks.service.ts): a
 * record's, or a run's (`kind` 'run', docs/api.md "Runs"), each side on its own index, then the better of the
 * two, marked offered in the same statement. The rows are locked and skipped by concurrent hand-outs (`skip
 * locked`), so of many pollers on any number of API processes exactly one gets a task: an offer kept in each
 * process's memory was read before an await and written after it, and two loops of one judger got one record.
 * Parameters: the offer's seconds, twice.
 */
export const NEXT_TASK_SQL = `with
    r as (select id, priority, created_at from records
      where state in ${WAITING_SQL} and config_id is not null and task_id is not null
        and (offered_until is null or offered_until <= now())
      order by priority, created_at limit 1 for update skip locked),
    u as (select id, priority, created_at from runs
      where state = 'queued' and task_id is not null and (offered_until is null or offered_until <= now())
      order by priority, created_at limit 1 for update skip locked),
    best as (select 'record' as kind, id, priority, created_at from r
      union all select 'run', id, priority, created_at from u order by priority, created_at limit 1),
    offered_record as (update records set offered_until = now() + make_interval(secs => ?)
      from best where best.kind = 'record' and records.id = best.id
      returning records.id, records.domain_id, records.task_id, records.language, null::text as kind),
    offered_run as (update runs set offered_until = now() + make_interval(secs => ?)
      from best where best.kind = 'run' and runs.id = best.id
      returning runs.id, runs.domain_id, runs.task_id, runs.language, 'run'::text as kind)
  select * from offered_record union all select * from offered_run`;

/** Working records whose lease lapsed, at most `limit`, the longest lapsed first (reconcile.service.ts). */
export const lapsedLeasesSql = (limit: number) =>
  `select id, attempts from records where state in ${WORKING_SQL} and lease_expires_at <= now() order by ` +
  `lease_expires_at limit ${limit}`;

/**
 * A page of waiting records older than the grace period, by keyset (updated_at, id): the position as
 * PostgreSQL's own text. Parameters: the grace in seconds, the last position's time twice, its id.
 */
export const waitingPageSql = (limit: number) => `select id, task_id, updated_at::text as at from records
        where state in ${WAITING_SQL} and updated_at < now() - make_interval(secs => ?)
          and (?::timestamptz is null or (updated_at, id) > (?::timestamptz, ?::uuid))
        order by updated_at, id limit ${limit}`;

/** A record's pinned config version and language (judged-record.ts). Parameters: record id, domain id. */
export const PIN_SQL = "select config_id, language from records where id = ? and domain_id = ?";

/** What a rejudge changes of a record, read around its statement for the audit log. */
export const JUDGEMENT_SQL = `select state, score, config_id as "configId" from records where id = ? and domain_id = ?`;

/** Why a rejudge found no config version to pin for the record: its problem, languages and latest version. */
export const PIN_CANDIDATES_SQL = `select r.problem_id, r.language, p.languages,
            (select c.id from problem_configs c where c.problem_id = p.id order by c.version desc limit 1) as latest
       from records r left join problems p on p.id = r.problem_id where r.id = ?`;

// The selections a rejudge runs on (rejudgeSql's `where`), over `records r`.
/** One record of a domain. Parameters: record id, domain id. */
export const REJUDGE_ONE = "r.id = ? and r.domain_id = ?";
/** A problem's records and the optional filters; `KEYSET` continues after a batch (on records_domain_problem_index). */
export const PROBLEM_RECORDS = `r.domain_id = ? and r.problem_id = ?
  and (?::uuid is null or r.problem_set_id = ?::uuid)
  and (?::text[] is null or r.state = any(?::text[]))
  and (?::text is null or r.language = ?)`;
export const KEYSET = " and (r.created_at, r.id) > (?::timestamptz, ?::uuid)";

/** Every statement this file can produce (the rejudge selections inside their statement), for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  NEXT_TASK_SQL,
  lapsedLeasesSql(500),
  waitingPageSql(500),
  PIN_SQL,
  JUDGEMENT_SQL,
  PIN_CANDIDATES_SQL,
  rejudgeSql(REJUDGE_ONE, 1, FINAL_STATES),
  rejudgeSql(PROBLEM_RECORDS, 500, FINAL_STATES),
  rejudgeSql(PROBLEM_RECORDS + KEYSET, 500, FINAL_STATES),
];
