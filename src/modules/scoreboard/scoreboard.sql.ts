/**
 * The scoreboard's hand-written SQL (the board and its grade export); tests/db/statements-prepare.test.ts
 * prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/**
 * The judged records submitted through a set for some problems, oldest first, with their committer's
 * name. Parameters: the set's id, the problems' ids as an array.
 */
export const JUDGED_ROWS_SQL = `select r.id, r.committer_id, u.username, r.problem_id, r.score, r.state, r.late,
            r.created_at
       from records r join users u on u.id = r.committer_id
      where r.problem_set_id = ? and r.problem_id = any(?::uuid[]) and r.state in ('accepted', 'rejected')
      order by r.created_at, r.id`;

/**
 * The people of a grade export: the domain's members (staff only) and anyone ranked on the board; student
 * ids and real names for staff only. Parameters: staff (three times), the domain's id, the ranked users'
 * ids as an array.
 */
export const GRADE_PEOPLE_SQL = `select u.id, u.username, case when ? then u.student_id else '' end as student_id,
            case when ? then u.real_name else '' end as real_name
       from users u
      where (? and u.id in (select user_id from domain_users where domain_id = ?)) or u.id = any(?::uuid[])`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [JUDGED_ROWS_SQL, GRADE_PEOPLE_SQL];
