/**
 * The problem sets' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** Locks a set's row, so that concurrent edits of its order cannot interleave. Parameter: the set's id. */
export const LOCK_SET_SQL = "select id from problem_sets where id = ? for update";

/**
 * A user's extension on a set, made if they have none; the unique (set, user) makes concurrent grants one row
 * (a second waits for the first to commit, then inserts nothing). Returns the id only when it made the row.
 * Parameters: id, set id, user id, due, lock, granted by.
 */
export const INSERT_EXTENSION_SQL = `
  insert into problem_set_extensions (id, problem_set_id, user_id, due_at, lock_at, granted_by_id)
  values (?, ?, ?, ?, ?, ?) on conflict (problem_set_id, user_id) do nothing returning id`;

/** Every statement this file can produce, for the prepare test. */
/**
 * Un-finalizes the domain's finalized sets named by id, or holding a record, or the records of a problem
 * (unfinalize.ts), and answers each with the time it had been finalized. Parameters: the domain, ids as an
 * array literal or null, a record's id or null, a problem's id or null.
 */
export const UNFINALIZE_SQL = `update problem_sets p set finalized_at = null
   from (select s.id, s.finalized_at from problem_sets s
          where s.domain_id = ? and s.finalized_at is not null
            and (s.id = any(?::uuid[])
                 or s.id in (select problem_set_id from records where id = ?::uuid)
                 or s.id in (select distinct problem_set_id from records where problem_id = ?::uuid))
          for update) old
  where p.id = old.id
  returning p.id::text as id, old.finalized_at`;

export const SAMPLE_STATEMENTS: string[] = [LOCK_SET_SQL, INSERT_EXTENSION_SQL, UNFINALIZE_SQL];
