/**
 * The users' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** The user behind a session, whole for the ORM to map, if active. Parameter: the user's id. */
export const ACTIVE_USER_SQL = "select * from users where id = ? and is_active";

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [ACTIVE_USER_SQL];
