import { RUN_CHANGE } from "./record-events.bus";

/** The live streams' statements; tests/db/statements-prepare.test.ts prepares each. */

/**
 * Whose each changed record (its committer) or run (its owner) is (change-owners.ts). Parameters: domain,
 * record ids, domain, run ids.
 */
export const OWNERS_SQL = `
  select id::text as id, committer_id::text as owner from records where domain_id = ? and id = any(?::uuid[])
  union all
  select '${RUN_CHANGE}' || id::text, owner_id::text from runs where domain_id = ? and id = any(?::uuid[])`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [OWNERS_SQL];
