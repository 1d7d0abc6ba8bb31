/**
 * The domains' hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/**
 * What a domain holds that must never be orphaned: a domain is deleted only when all of these are
 * empty. Problems, problem sets and records register their tables here as they arrive (issues 4, 5);
 * their foreign keys to `domains` use ON DELETE RESTRICT as the database's own backstop.
 */
export const DOMAIN_CONTENT: { table: string; label: string }[] = [
  { table: "problems", label: "problem(s)" },
  { table: "problem_sets", label: "problem set(s)" },
  { table: "records", label: "record(s)" },
];

/** How many rows of a content table a domain holds. Parameter: the domain's id. */
export const domainContentSql = (table: string) => `select count(*)::int as n from "${table}" where domain_id = ?`;

/**
 * Distinct groups matching a pattern; groups of hidden domains only for their members or site viewers.
 * Parameters: the ILIKE pattern, whether the caller sees hidden domains, the caller's id.
 */
export const SEARCH_GROUPS_SQL = `select distinct d."group" from domains d
      where d."group" <> '' and d."group" ilike ?
        and (? or not d.hidden or exists (select 1 from domain_users m where m.domain_id = d.id and m.user_id = ?))
      order by d."group" limit 100`;

/**
 * A domain's participants: members whose role may submit and does not manage the domain's problem sets (`root`
 * manages whatever its row says). Staff who test a set are not its students. The members' part of who is on a
 * set's board, its grade book and its Contest API teams (scoreboard/board-people.ts). Parameter: the domain's id.
 */
export const PARTICIPANTS_SQL = `select du.user_id from domain_users du
       join domain_roles dr on dr.domain_id = du.domain_id and dr.role = du.role
      where du.domain_id = ? and du.role <> 'root'
        and not coalesce((dr.permission->'problemSet'->>'viewHidden')::boolean, false)
        and coalesce((dr.permission->'problem'->>'submit')::boolean, false)`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  ...DOMAIN_CONTENT.map(({ table }) => domainContentSql(table)),
  SEARCH_GROUPS_SQL,
  PARTICIPANTS_SQL,
];
