import { PARTICIPANTS_SQL } from "../domains/domains.sql";

/**
 * The scoreboard's hand-written SQL (the board, who is on it, and its grade export);
 * tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/**
 * How many records a set has from users, when one last changed, and the sum of their row versions (xmin, new
 * with every committed update): the board's cache stamp. The sum moves even when a change commits after a
 * later one, its updated_at (its statement's start) older than the latest. Parameter: the set.
 */
export const BOARD_STAMP_SQL = `select count(*)::int as count, max(updated_at) as latest,
            coalesce(sum(xmin::text::bigint), 0)::text as version
       from records where problem_set_id = ? and committer_id is not null and state <> 'failed'`;

/**
 * The board's columns of a record: its row version (the stamp's sum adds them up), its first case verdict that
 * was not accepted (ICPC's penalty reads it) and, for IOI, its cases' scores in order. A judge failure
 * (\`failed\`) is on no board.
 */
const BOARD_COLUMNS = `r.id, r.committer_id, u.username, r.problem_id, r.score, r.state, r.created_at,
            r.config_id, r.language, r.xmin::text as version,
            case when r.state = 'rejected' then (select c->>'state' from jsonb_array_elements(r.cases) c
                                                  where c->>'state' <> 'accepted' limit 1) end as verdict,
            case when ? then array(select coalesce((c->>'score')::int, 0)
                                     from jsonb_array_elements(r.cases) with ordinality e(c, n) order by n) end
              as case_scores
       from records r join users u on u.id = r.committer_id`;

/** A set's records from users, every state but failed. Parameters: whether to read case scores, the set. */
export const BOARD_ROWS_SQL = `select ${BOARD_COLUMNS}
      where r.problem_set_id = ? and r.state <> 'failed'`;

/**
 * A set's records changed since an instant, failed ones too (a rejudge may have failed one the board held),
 * each beside the set's stamp read in the same statement, so in the same snapshot: the changes add up to it
 * unless one was missed. No change: one row of the stamp alone (its record columns null). Parameters: the set,
 * whether to read case scores, the set, the instant.
 */
export const BOARD_CHANGED_SQL = `select s.count as stamp_count, s.latest as stamp_latest, s.version as stamp_version, c.*
       from (${BOARD_STAMP_SQL}) s
       left join (select ${BOARD_COLUMNS} where r.problem_set_id = ? and r.updated_at >= ?) c on true`;

/**
 * The domain's members as a board sees them: each with their username and whether their role makes them a
 * participant (PARTICIPANTS_SQL). Who else is on a board (a removed student) comes from the set's records
 * (board-people.ts). Parameters: the domain (twice).
 */
export const BOARD_MEMBERS_SQL = `select du.user_id::text as user_id, u.username,
            du.user_id in (${PARTICIPANTS_SQL}) as participant
       from domain_users du join users u on u.id = du.user_id
      where du.domain_id = ?`;

/**
 * A stamp of the domain's members and roles, for the boards kept (scoreboard.service.ts): how many members,
 * and the sums of the members' and the roles' row versions (xmin, new with every committed insert or update).
 * A member added, removed or given another role, or a role's permissions edited, moves it: with the count
 * unchanged a sum still moves, the new rows' versions being newer than those of the rows they replace.
 * Parameters: the domain (twice).
 */
export const BOARD_MEMBERS_STAMP_SQL = `select (select count(*)::text || ':' || coalesce(sum(xmin::text::bigint), 0)
                 from domain_users where domain_id = ?)
            || ':' || (select coalesce(sum(xmin::text::bigint), 0) from domain_roles where domain_id = ?) as stamp`;

/**
 * The people of a grade export, the board's rows (grade-export.service.ts). Student ids and real names for staff
 * only. Parameters: staff (twice), the rows' user ids as an array.
 */
export const GRADE_PEOPLE_SQL = `select u.id, u.username, case when ? then u.student_id else '' end as student_id,
            case when ? then u.real_name else '' end as real_name
       from users u where u.id = any(?::uuid[])`;

/** The stages of the records a grade book counts (grade-export.service.ts). Parameters: domain, record ids. */
export const GRADE_STAGES_SQL = "select id, stages from records where domain_id = ? and id = any(?::uuid[])";

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  BOARD_STAMP_SQL,
  BOARD_ROWS_SQL,
  BOARD_CHANGED_SQL,
  BOARD_MEMBERS_SQL,
  BOARD_MEMBERS_STAMP_SQL,
  GRADE_PEOPLE_SQL,
  GRADE_STAGES_SQL,
];
