import type { RecordState } from "../judging/record-states";

/**
 * The submissions' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** A problem's latest config version and its languages, in one snapshot. Parameter: the problem's id. */
export const LATEST_CONFIG_SQL = `
  select c.id as config_id, p.languages from problems p
    left join lateral (select id from problem_configs where problem_id = p.id order by version desc limit 1) c on true
   where p.id = ?`;

// The whole submission is this one statement, so one transaction and one durable commit: the blobs'
// ledger rows (refreshed to "now", which keeps the collector off them), the record, its files and
// the submit counters, which move in SQL so concurrent submissions never overwrite each other's.
/** The submission saved in `state` (record-transitions.ts, `submit`). */
export const submitSql = (state: RecordState) => `
  with b as (
    insert into blobs (digest, size, created_at) select d, s, now() from unnest(?::text[], ?::bigint[]) u(d, s)
    on conflict (digest) do update set created_at = now()),
  r as (
    insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, config_id, committer_id,
                         state, language, task_id, commit_id, late)
    values (?, ?, ?, ?, ?, ?, ?, ?, '${state}', ?, ?, ?, ?) returning id),
  f as (
    insert into record_files (id, record_id, path, digest, size)
    select gen_random_uuid(), r.id, u.p, u.d, u.s from r, unnest(?::text[], ?::text[], ?::bigint[]) u(p, d, s)),
  p as (update problems set num_submit = num_submit + 1 where id = ?),
  s as (update problem_sets set num_submit = num_submit + 1 where id = ?::uuid)
  select id from r`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [LATEST_CONFIG_SQL, submitSql("queueing")];
