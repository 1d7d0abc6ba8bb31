/**
 * The runs' hand-written SQL (docs/api.md "Runs"). A run moves queued → running → done or failed; each
 * move is one conditional UPDATE that names what it expects (the task, the judger, a live lease), so a
 * judger and the housekeeping racing for one run never both act: PostgreSQL's row lock decides.
 * tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/** A user's runs are created one at a time, so the counts of RUN_LIMITS_SQL hold until the insert. */
export const OWNER_LOCK_SQL = "select pg_advisory_xact_lock(hashtextextended(?, 0))";

/**
 * A user's runs queued or being judged (RUNS_WAITING), and those accepted in the last 60 s (RUNS_PER_MINUTE)
 * with the milliseconds until the oldest of them leaves the minute. The run rows are the minute's only
 * count, so a refusal of any kind spends nothing; a run outlives the minute (RUNS_KEEP_MINUTES ≥ 1).
 * statement_timestamp(), not now(): a transaction that waited for the owner's lock must not count from
 * when it began. Parameter: the user's id.
 */
export const RUN_LIMITS_SQL = `select count(*) filter (where state in ('queued', 'running'))::int as waiting,
    count(*) filter (where created_at > statement_timestamp() - interval '1 minute')::int as minute,
    coalesce(ceil(extract(epoch from min(created_at) filter (where created_at > statement_timestamp()
      - interval '1 minute') + interval '1 minute' - statement_timestamp()) * 1000), 0)::int as retry_ms
  from runs where owner_id = ?`;

/**
 * The run in one statement: the blobs' ledger rows (refreshed, which keeps the collector off them), the
 * run and its files (the generated config's and the program's). The lists come as JSON (the statement runs
 * in the owner's transaction, whose driver would spread an array parameter): the blobs `[{d, s}]` once each,
 * the files `[{k, p, d, s}]`.
 */
export const CREATE_RUN_SQL = `
  with b as (
    insert into blobs (digest, size, created_at)
    select u.d, u.s, now() from jsonb_to_recordset(?::jsonb) u(d text, s bigint)
    on conflict (digest) do update set created_at = now()),
  r as (
    insert into runs (id, domain_id, problem_id, problem_set_id, owner_id, language, mode, task_id, priority,
                      created_at, expires_at, sources)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, statement_timestamp(), statement_timestamp() + make_interval(mins => ?),
            ?::jsonb)
    returning id, created_at, expires_at),
  f as (
    insert into run_files (id, run_id, kind, path, digest, size)
    select gen_random_uuid(), r.id, u.k, u.p, u.d, u.s
      from r, jsonb_to_recordset(?::jsonb) u(k text, p text, d text, s bigint))
  select id, created_at, expires_at from r`;

/** The files of a run (kind `config` or `code`). Parameter: the run's id. */
export const RUN_FILES_SQL = "select kind, path, digest, size from run_files where run_id = ? order by kind, path";

const HOLDER = "id = ? and domain_id = ? and task_id = ? and judger_id = ? and state = 'running'";
const LEASE = "lease_expires_at = now() + make_interval(secs => ?)";

/** A judger takes a queued run with its current task. Parameters: judger, lease seconds, run, domain, task. */
export const CLAIM_RUN_SQL = `update runs set state = 'running', judger_id = ?, attempts = attempts + 1, ${LEASE},
    updated_at = now() where id = ? and domain_id = ? and task_id = ? and state = 'queued'
  returning id, language, lease_expires_at`;

/** The holder renews its lease while it lasts. Parameters: lease seconds, run, domain, task, judger. */
export const RENEW_RUN_SQL = `update runs set ${LEASE} where ${HOLDER} and lease_expires_at > now()
  returning id, language, lease_expires_at`;

/**
 * The holder gives the run back: queued again under a new task, the attempt not counted. Parameters: the new
 * task, run, domain, old task, judger.
 */
export const RELEASE_RUN_SQL = `update runs set state = 'queued', task_id = ?, judger_id = null,
    lease_expires_at = null, cases = '[]', attempts = greatest(attempts - 1, 0), updated_at = now()
  where ${HOLDER} returning priority`;

/** The holder's final report. Parameters: the final state, run, domain, task, judger. */
export const FINISH_RUN_SQL = `update runs set state = ?, judged_at = now(), lease_expires_at = null, updated_at = now()
  where ${HOLDER} and lease_expires_at > now() returning id`;

/** The holder's cases, read under the row's lock before a merge. Parameters: run, domain, task, judger. */
export const HELD_CASES_SQL = `select cases, jsonb_array_length(sources) as n from runs
  where ${HOLDER} and lease_expires_at > now() for update`;

/** Whether the caller holds the run with a live lease. Parameters: run, domain, judger. */
export const HOLDS_RUN_SQL = `select 1 from runs where id = ? and domain_id = ? and judger_id = ? and state = 'running'
  and lease_expires_at > now()`;

/** A run's state, to say why a call changed nothing. Parameters: run, domain. */
export const RUN_STATE_SQL = "select state from runs where id = ? and domain_id = ?";

/** The merged cases, the lease renewed. Parameters: cases (JSON), lease seconds, run id. */
export const WRITE_CASES_SQL = `update runs set cases = ?::jsonb, ${LEASE}, updated_at = now() where id = ?`;

/** Runs past their keeping time, deleted with their files (a batch). */
export const EXPIRE_RUNS_SQL = `delete from runs where id in (select id from runs where expires_at <= now() limit 1000)
  returning id`;

/** Runs whose judger's lease lapsed (a batch). */
export const LAPSED_RUNS_SQL = `select id, attempts from runs where state = 'running' and lease_expires_at <= now()
  order by lease_expires_at limit 500`;

/** A lapsed run back in the queue under a new task. Parameters: the new task, run. */
export const REQUEUE_RUN_SQL = `update runs set state = 'queued', task_id = ?, judger_id = null,
    lease_expires_at = null, cases = '[]', updated_at = now()
  where id = ? and state = 'running' and lease_expires_at <= now()
  returning domain_id, owner_id`;

/** A run abandoned too often ends failed. Parameters: its cases (JSON), run. */
export const EXHAUST_RUN_SQL = `update runs set state = 'failed', judged_at = now(), lease_expires_at = null,
    cases = ?::jsonb, updated_at = now() where id = ? and state = 'running' and lease_expires_at <= now()
  returning domain_id, owner_id`;

/** Queued runs older than the grace (seconds), to look for their jobs (a batch). */
export const QUEUED_RUNS_SQL = `select id, task_id from runs where state = 'queued'
  and updated_at < now() - make_interval(secs => ?) order by updated_at limit 500`;

/** A queued run whose job was lost, under a new task. Parameters: the new task, run, the old task. */
export const REENQUEUE_RUN_SQL = `update runs set task_id = ?, updated_at = now()
  where id = ? and state = 'queued' and task_id is not distinct from ?::uuid returning domain_id, owner_id`;

/** Every statement of this file, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  OWNER_LOCK_SQL,
  RUN_LIMITS_SQL,
  CREATE_RUN_SQL,
  RUN_FILES_SQL,
  CLAIM_RUN_SQL,
  RENEW_RUN_SQL,
  RELEASE_RUN_SQL,
  FINISH_RUN_SQL,
  HELD_CASES_SQL,
  HOLDS_RUN_SQL,
  RUN_STATE_SQL,
  WRITE_CASES_SQL,
  EXPIRE_RUNS_SQL,
  LAPSED_RUNS_SQL,
  REQUEUE_RUN_SQL,
  EXHAUST_RUN_SQL,
  QUEUED_RUNS_SQL,
  REENQUEUE_RUN_SQL,
];
