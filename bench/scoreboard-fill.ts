import type { SQL } from "bun";
import { randomUUID } from "node:crypto";
import { identityKey } from "../src/modules/identity/credentials/names";
import type { Cast } from "../tests/helpers/domain-factories";
import { addMembership } from "../tests/helpers/domain-factories";
import { createUser, type TestUser } from "../tests/helpers/factories";
import { configVersion, configWith } from "../tests/helpers/records";
import type { TestApp } from "../tests/helpers/spawn-app";
import { realisticPerson } from "../tests/fixtures/names";

/**
 * The contest `bench:scoreboard` reads, made by SQL (generate_series): a domain's students, a set per rule
 * over the same problems, and the same records in each set. Every problem's config version has ten cases
 * in three subtasks, so an IOI board scores by subtask; the cases are written as the judge writes them
 * (a subtask's score on its last case, `compile_error` on every case with the compiler's output on case 0).
 */

export const RULES = ["best", "icpc", "ioi", "oi"] as const;
export type Rule = (typeof RULES)[number];

/** Ten cases: 0–2, 3–5 and 6–9 scored together (20, 30, 50), as a typical IOI problem's config.json has them. */
const SUBTASKS = [
  { score: 20, cases: [0, 1, 2] },
  { score: 30, cases: [3, 4, 5] },
  { score: 50, cases: [6, 7, 8, 9] },
];
const CASES = 10;
const CONTEST_SECONDS = 5 * 3600;
const COMPILER_SAYS =
  "main.c: In function 'main':\nmain.c:6:27: error: expected ';' before 'return'\n    6 |   printf(\"%d\\n\", a + b)\n" +
  "      |                           ^\n      |                           ;\n    7 |   return 0;\n";

export interface Contest {
  domain: string;
  sets: Record<Rule, string>;
  student: TestUser;
  /** The records of each set, for the writer. */
  recordIds: Record<Rule, string[]>;
}

/** A uniform draw in [0, 1) from a row's number and a salt: the same contest on every run. */
const draw = (row: string, salt: number) => `((hashint4extended(${row}, ${salt}) & 4294967295)::float8 / 4294967296.0)`;

/**
 * A record's ten cases, as SQL over a verdict (`accepted`, `compile_error`, `pending`, or the case verdict
 * the program fails with) and how many cases pass before it fails (`passed`); `row` varies the timings.
 */
export function casesSql(verdict: string, passed: string, row: string): string {
  const k = `(case ${verdict} when 'accepted' then ${CASES} when 'compile_error' then 0 when 'pending' then 0 else ${passed} end)`;
  const state = `(case when i < ${k} then 'accepted' when ${verdict} = 'pending' then 'etc' else ${verdict} end)`;
  const score = `(case ${SUBTASKS.map((s) => `when i = ${s.cases.at(-1)} and ${k} > i then ${s.score}`).join(" ")} else 0 end)`;
  const jitter = `abs(hashint4(${row} * 16 + i))`;
  return `(select jsonb_agg(jsonb_build_object(
      'state', ${state},
      'score', ${score},
      'timeMs', case ${state} when 'accepted' then 2 + ${jitter} % 40 when 'time_limit_exceeded' then 1000
                 when 'wrong_answer' then 3 + ${jitter} % 20 when 'runtime_error' then 1 + ${jitter} % 5 else 0 end,
      'memoryKb', case ${state} when 'memory_limit_exceeded' then 262144 when 'compile_error' then 0 when 'etc' then 0
                  else 1400 + ${jitter} % 2600 end,
      'returnCode', case ${state} when 'runtime_error' then 139 when 'memory_limit_exceeded' then 137
                    when 'time_limit_exceeded' then 137 else 0 end,
      'stdout', case ${state} when 'accepted' then (i * 7919 % 1000)::text || E'\\n'
                when 'wrong_answer' then (i * 7919 % 1000 + 1)::text || E'\\n' else '' end,
      'stderr', case when ${state} = 'compile_error' and i = 0 then $cc$${COMPILER_SAYS}$cc$
                when ${state} = 'compile_error' then 'see case 0' else '' end) order by i)
    from generate_series(0, ${CASES - 1}) i)`;
}

/** The record's state and totals from its cases, as the judge's final report leaves them. */
export const totalsSql = (cases: string, verdict: string) => `
  case ${verdict} when 'accepted' then 'accepted' when 'pending' then 'judging' else 'rejected' end as state,
  (select coalesce(sum((c->>'score')::int), 0) from jsonb_array_elements(${cases}) c) as score,
  (select coalesce(sum((c->>'timeMs')::int), 0) from jsonb_array_elements(${cases}) c) as time_ms,
  (select coalesce(max((c->>'memoryKb')::int), 0) from jsonb_array_elements(${cases}) c) as memory_kb`;

/** `users` students (the viewer among them, made through the service for a token), all members of the domain. */
async function makeStudents(
  t: TestApp,
  sql: SQL,
  cast: Cast,
  users: number,
): Promise<{ student: TestUser; ids: string[] }> {
  const student = await createUser(t);
  await addMembership(t, cast.domain, student, "user");
  const people = Array.from({ length: users - 1 }, (_, i) => {
    const person = realisticPerson();
    return {
      id: randomUUID(),
      username: person.username,
      username_lower: identityKey(person.username),
      email: person.email,
      email_lower: identityKey(person.email),
      student_id: String(520_030_910_000 + i),
    };
  });
  // `::text::jsonb`: Bun.sql sends a string for a jsonb parameter as a JSON string, not as JSON text.
  await sql`insert into users (id, username, username_lower, email, email_lower, student_id)
    select id, username, username_lower, email, email_lower, student_id
      from jsonb_to_recordset(${JSON.stringify(people)}::text::jsonb)
        as x(id uuid, username text, username_lower text, email text, email_lower text, student_id text)`;
  await sql`insert into domain_users (id, domain_id, user_id, role)
    select gen_random_uuid(), ${cast.domain.id}, id, 'user' from jsonb_to_recordset(${JSON.stringify(people)}::text::jsonb)
      as x(id uuid)`;
  return { student, ids: [student.user.id, ...people.map((p) => p.id)] };
}

/** `count` problems, each with a config version of ten cases in three subtasks (and its data). */
async function makeProblems(t: TestApp, cast: Cast, count: number): Promise<string[]> {
  const config = configWith(
    ["c"],
    Array.from({ length: CASES }, () => "pretest"),
  );
  const withSubtasks = { languages: config.languages.map((language) => ({ ...language, subtasks: SUBTASKS })) };
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const title = `${String.fromCharCode(65 + (i % 26))}. Problem ${i + 1}`;
    const made = await t.api.post(`/domains/${cast.domain.id}/problems`, { title }, { token: cast.owner.token });
    if (made.body.errorCode !== "Success") throw new Error(`problem: ${JSON.stringify(made.body)}`);
    await configVersion(t, made.body.data.id, withSubtasks);
    ids.push(made.body.data.id);
  }
  return ids;
}

/**
 * A set per rule with the problems in order and the contest's window: it started five hours before the fill
 * and ends an hour after it, so the benchmark reads a running contest (OI sealed, ICPC frozen for its last
 * hour). Homework's `best` has a due time an hour before the fill with a late step and five extensions.
 */
async function makeSets(t: TestApp, sql: SQL, cast: Cast, problems: string[], start: Date, students: string[]) {
  const sets = {} as Record<Rule, string>;
  const end = new Date(start.getTime() + (CONTEST_SECONDS + 3600) * 1000);
  const lastHour = new Date(start.getTime() + (CONTEST_SECONDS - 3600) * 1000);
  for (const rule of RULES) {
    const made = await t.api.post(
      `/domains/${cast.domain.id}/problem_sets`,
      { title: `Contest (${rule})` },
      { token: cast.admin.token },
    );
    if (made.body.errorCode !== "Success") throw new Error(`set: ${JSON.stringify(made.body)}`);
    const id = made.body.data.id as string;
    sets[rule] = id;
    const due = rule === "best" ? lastHour : end;
    // The rule and the contest's settings by SQL: the API's set schema is not where this benchmark looks.
    await sql`update problem_sets set scoreboard_rule = ${rule}, unlock_at = ${start}, due_at = ${due}, lock_at = ${end},
        freeze_at = ${rule === "icpc" ? lastHour : null},
        late_penalty = ${rule === "best" ? '[{"after": "0h", "factor": 0.7}]' : "[]"}::text::jsonb
      where id = ${id}`;
    await sql`insert into problem_set_problems (id, problem_set_id, problem_id, position)
      select gen_random_uuid(), ${id}, p, n - 1 from unnest(${`{${problems.join(",")}}`}::uuid[]) with ordinality as x(p, n)`;
  }
  await sql`insert into problem_set_extensions (id, problem_set_id, user_id, due_at, lock_at)
    select gen_random_uuid(), ${sets.best}, u, ${end}, ${end}
      from unnest(${`{${students.slice(10, 15).join(",")}}`}::uuid[]) as x(u)`;
  return sets;
}

/**
 * `records` records through the first set, over the contest's five hours in order: who submits is skewed
 * (some students submit far more), earlier problems are tried more and solved more often (55 % accepted on
 * the first, 17 % on the last), 6 % do not compile, the rest fail a case (wrong answer 60 %, time 20 %,
 * runtime error 15 %, memory 5 %) after passing the ones before it; the newest 0.2 % are still being judged.
 * The other sets get copies of the same records.
 */
async function fillRecords(
  sql: SQL,
  domain: string,
  sets: Record<Rule, string>,
  problems: string[],
  students: string[],
  records: number,
  start: Date,
) {
  const uuids = (ids: string[]) => `{${ids.join(",")}}`;
  const pending = Math.ceil(records * 0.002);
  const accepted = `0.55 - ${0.38 / Math.max(1, problems.length - 1)} * (p - 1)`;
  await sql.unsafe(
    `with drawn as (
       select g, $2::timestamptz + make_interval(secs => (g - 1 + ${draw("g", 1)}) * ${CONTEST_SECONDS}.0 / $5::int) as at,
              ($3::uuid[])[1 + floor(power(${draw("g", 2)}, 1.6) * cardinality($3::uuid[]))::int] as committer,
              1 + floor(power(${draw("g", 3)}, 1.3) * cardinality($4::uuid[]))::int as p,
              ${draw("g", 4)} as luck, ${draw("g", 5)} as kind, floor(${draw("g", 6)} * ${CASES})::int as passed
         from generate_series(1, $5::int) g),
     judged as (
       select d.*, case when g > $5::int - ${pending} then 'pending'
                        when luck < ${accepted} then 'accepted'
                        when luck < ${accepted} + 0.06 then 'compile_error'
                        when kind < 0.6 then 'wrong_answer' when kind < 0.8 then 'time_limit_exceeded'
                        when kind < 0.95 then 'runtime_error' else 'memory_limit_exceeded' end as verdict
         from drawn d),
     cased as (select j.*, ${casesSql("j.verdict", "j.passed", "j.g")} as cases from judged j)
     insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, config_id, committer_id,
                          state, language, score, time_ms, memory_kb, judged_at, cases)
     select gen_random_uuid(), at, at + interval '2 seconds', $1, $6, ($4::uuid[])[p],
            (select id from problem_configs where problem_id = ($4::uuid[])[p] order by version desc limit 1), committer,
            t.state, 'c', t.score, t.time_ms, t.memory_kb, case when verdict <> 'pending' then at + interval '2 seconds' end, cases
       from cased, lateral (select ${totalsSql("cases", "verdict")}) t`,
    [domain, start, uuids(students), uuids(problems), records, sets[RULES[0]]],
  );
  for (const rule of RULES.slice(1))
    await sql`insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, config_id, committer_id,
                                   state, language, score, time_ms, memory_kb, judged_at, cases)
      select gen_random_uuid(), created_at, updated_at, domain_id, ${sets[rule]}, problem_id, config_id, committer_id,
             state, language, score, time_ms, memory_kb, judged_at, cases
        from records where problem_set_id = ${sets[RULES[0]]}`;
  // Homework's records are late from the submitter's own due time on, as a submission through the set marks them.
  await sql`update records r set late = r.created_at >= coalesce(
        (select e.due_at from problem_set_extensions e where e.problem_set_id = r.problem_set_id and e.user_id = r.committer_id),
        s.due_at)
      from problem_sets s where s.id = ${sets.best} and r.problem_set_id = s.id`;
}

/**
 * The records a course's database holds besides the contest: `other` practice records (no set) of the same
 * students and problems in the weeks before, copies of the contest's. Without them the contest's sets are
 * the whole table, and PostgreSQL reads a set by scanning the table.
 */
async function fillPractice(sql: SQL, source: string, records: number, other: number) {
  if (other <= 0) return;
  await sql`insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, config_id, committer_id,
                                 state, language, score, time_ms, memory_kb, judged_at, cases)
    select gen_random_uuid(), created_at - make_interval(days => 7 * k), updated_at - make_interval(days => 7 * k),
           domain_id, null, problem_id, config_id, committer_id, state, language, score, time_ms, memory_kb,
           judged_at - make_interval(days => 7 * k), cases
      from records, generate_series(1, ${Math.ceil(other / Math.max(1, records))}) k
     where problem_set_id = ${source}
     limit ${other}`;
}

export async function fillContest(
  t: TestApp,
  sql: SQL,
  cast: Cast,
  size: { users: number; problems: number; records: number; other: number },
): Promise<Contest> {
  const { student, ids } = await makeStudents(t, sql, cast, size.users);
  const problems = await makeProblems(t, cast, size.problems);
  const [{ now }] = await sql`select now() as now`;
  const start = new Date(new Date(now).getTime() - CONTEST_SECONDS * 1000);
  const sets = await makeSets(t, sql, cast, problems, start, ids);
  await fillRecords(sql, cast.domain.id, sets, problems, ids, size.records, start);
  await fillPractice(sql, sets[RULES[0]], size.records, size.other);
  // What autovacuum does on a live database (statistics, the visibility map), and the fill's pages written
  // out now rather than by the checkpointer in the middle of a measurement.
  await sql`vacuum analyze`;
  await sql`checkpoint`;
  const recordIds = {} as Record<Rule, string[]>;
  for (const rule of RULES)
    recordIds[rule] = (await sql`select id from records where problem_set_id = ${sets[rule]}`).map(
      (r: { id: string }) => r.id,
    );
  return { domain: cast.domain.id, sets, student, recordIds };
}
