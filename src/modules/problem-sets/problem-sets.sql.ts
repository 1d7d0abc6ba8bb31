/**
 * The problem sets' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** Locks a set's row, so that concurrent edits of its order cannot interleave. Parameter: the set's id. */
export const LOCK_SET_SQL = "select id from problem_sets where id = ? for update";

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [LOCK_SET_SQL];
