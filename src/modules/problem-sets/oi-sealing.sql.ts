/** OI sealing's statement (oi-sealing.ts); tests/db/statements-prepare.test.ts prepares it. */

/** Sets' rules, ends and whether staff published their results. Parameter: the sets' ids as an array. */
export const SEAL_SQL = `select id, scoreboard_rule as rule, coalesce(lock_at, due_at) as "end",
            unfrozen_at is not null as unfrozen
       from problem_sets where id = any(?::uuid[])`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [SEAL_SQL];
