/**
 * The metrics' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/**
 * How many records are in each of `states` states (one placeholder each), as text. For open states only:
 * the (state, …) index answers this at any size; a count of final states would scan.
 */
export const recordsInStatesSql = (states: number) => {
  const placeholders = Array.from({ length: states }, () => "?").join(", ");
  return `select state, count(*)::text as n from records where state in (${placeholders}) group by state`;
};

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [recordsInStatesSql(1), recordsInStatesSql(7)];
