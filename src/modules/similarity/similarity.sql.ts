/**
 * The similarity report's hand-written SQL: which record of each user a report compares, and its files.
 * tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS against the schema.
 */

/** How each user's record is chosen: the latest, or the best score (then the latest). */
const ORDER = {
  latest: "r.created_at desc, r.id",
  best: "r.score desc, r.created_at desc, r.id",
} as const;

/**
 * One record per user of a problem in a domain, with the user's name. Parameters: domain id, problem id.
 * Records of deleted users (no committer) are left out: there is no one to ask about them.
 */
export const submissionsSql = (which: keyof typeof ORDER) =>
  `select distinct on (r.committer_id) r.id, r.committer_id as "user", u.username, r.language
     from records r left join users u on u.id = r.committer_id
    where r.domain_id = ? and r.problem_id = ? and r.committer_id is not null
    order by r.committer_id, ${ORDER[which]}`;

/** The files of some records. Parameters: the record ids as a uuid array. */
export const RECORD_FILES_SQL = `select record_id as record, path, digest, size
  from record_files where record_id = any(?::uuid[]) order by record_id, path`;

export const SAMPLE_STATEMENTS: string[] = [submissionsSql("latest"), submissionsSql("best"), RECORD_FILES_SQL];

/**
 * A report queued or running this long has lost its job (a worker gone, a database error while it was
 * failing): the next request starts it again rather than answering with it for ever. A class's report
 * takes under half a minute.
 */
export const STALE_MINUTES = 10;

/**
 * Starts a problem's report, unless one is queued or running (and not stale): a new row, or the ended one made anew, in
 * one statement, so that of requests at the same moment exactly one starts it (and enqueues its job).
 * Returns the id when this call started it. Parameters: id, domain id, problem id, user id, options.
 */
export const START_REPORT_SQL = `insert into similarity_reports
    (id, created_at, updated_at, domain_id, problem_id, requested_by_id, state, options)
  values (?, now(), now(), ?, ?, ?, 'queued', ?::jsonb)
  on conflict (problem_id) do update set state = 'queued', reason = null, options = excluded.options,
    requested_by_id = excluded.requested_by_id, created_at = now(), updated_at = now(), started_at = null,
    finished_at = null, submissions = '[]', pairs = '[]'
  where similarity_reports.state in ('done', 'failed')
     or similarity_reports.updated_at < now() - interval '${STALE_MINUTES} minutes'
  returning id`;

SAMPLE_STATEMENTS.push(START_REPORT_SQL);
