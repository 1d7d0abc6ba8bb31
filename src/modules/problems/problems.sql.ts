import { isoSql } from "../../db/statements";
import { latestRecordSql } from "../records/records.sql";
import { standingSamples } from "../identity/identity.sql";

/**
 * The problems' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** How a path names a problem: the column its reference is matched on. */
export type ProblemKey = "id" | "url";

/**
 * A problem's page as JSON text with, in the same statement, the caller's newest record for it through
 * the problem's own route. Parameters: the caller's id, the problem's id or url, the domain's id; the
 * caller and the domain may be named by columns instead (`caller`, `domain`).
 */
export const problemPageSql = (key: ProblemKey, caller = "?", domain = "?") =>
  `select p.hidden, json_build_object('id', p.id, 'domainId', p.domain_id, 'url', p.url, 'title', p.title,
              'hidden', p.hidden, 'numSubmit', p.num_submit, 'numAccept', p.num_accept, 'ownerId', p.owner_id,
              'problemGroupId', p.problem_group_id, 'content', p.content, 'createdAt', ${isoSql("p.created_at")},
              'updatedAt', ${isoSql("p.updated_at")}, 'languages', p.languages,
              'latestRecord', ${latestRecordSql("p.id", false, caller)})::text as page
       from problems p where p.${key} = ? and p.domain_id = ${domain}`;

/**
 * The problem page's read with the caller's standing (identity.sql.ts): the caller and the path's domain
 * are the standing's. Parameter: the problem's id or url.
 */
export const PAGE_LATERAL = {
  id: problemPageSql("id", "u.id", "d.id"),
  url: problemPageSql("url", "u.id", "d.id"),
} as const satisfies Record<ProblemKey, string>;

/** A problem of a domain, whole for the ORM to map. Parameters: the problem's id or url, the domain's id. */
export const problemSql = (key: ProblemKey) => `select * from problems p where p.${key} = ? and p.domain_id = ?`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = (["id", "url"] as const).flatMap((key) => [
  problemPageSql(key),
  problemSql(key),
  ...standingSamples(PAGE_LATERAL[key]),
]);
