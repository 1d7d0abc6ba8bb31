/** The Contest API's reads (ccs-contest.ts); tests/db/statements-prepare.test.ts prepares each. */

/**
 * A set's records, oldest first, each case's result and time only (not its output). Parameters: domain, set.
 */
export const CCS_RECORDS_SQL = `
  select r.id::text as id, r.committer_id::text as team, r.problem_id::text as problem, r.language, r.state, r.score,
         r.created_at, r.judged_at, r.updated_at, r.history,
         (select coalesce(jsonb_agg(jsonb_build_object('state', c->>'state', 'timeMs', coalesce((c->>'timeMs')::int, 0))
                                    order by o), '[]'::jsonb)
            from jsonb_array_elements(r.cases) with ordinality x(c, o)) as cases
    from records r
   where r.domain_id = ? and r.problem_set_id = ? and r.problem_id is not null
   order by r.created_at, r.id`;

/** Each problem's latest config version. Parameters: problem ids. */
export const CCS_LATEST_CONFIGS_SQL = `
  select distinct on (problem_id) problem_id::text as problem, id::text as config
    from problem_configs where problem_id = any(?::uuid[]) order by problem_id, version desc`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [CCS_RECORDS_SQL, CCS_LATEST_CONFIGS_SQL];
