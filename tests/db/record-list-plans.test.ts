import { readRow } from "../../src/db/statements";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser } from "../helpers/factories";
import { judgeableProblem } from "../helpers/records";
import { fillRecords } from "../helpers/fill-records";
import { numbered } from "../../src/db/statements";
import { recordPageStatement } from "../../src/modules/records/record-list";
import type { DomainAccess } from "../../src/modules/identity/access";
import type { RecordListQueryInput } from "../../src/modules/records/records.schemas";

// The app runs its prepared reads with their generic plans (mikro-orm.config.ts), planned without the
// values. The record list's statement must plan right whatever they are: the page found on an index,
// each of its records read by its id. Written as a join, its generic plan read every record of the table.
let t: TestApp;
let cast: Cast;
let sql: SQL;
let population: { domain: string; set: string; problem: string; students: string[] };
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  sql = new SQL(t.config.databaseUrl!, { max: 1 });
  const problem = await judgeableProblem(t, cast);
  const set = (
    await t.api.post(`/domains/${cast.domain.id}/problem_sets`, { title: "Week 1" }, { token: cast.admin.token })
  ).body.data.id;
  const students = await Promise.all(Array.from({ length: 4 }, () => createUser(t)));
  population = { domain: cast.domain.id, set, problem, students: students.map((s) => s.user.id) };
  await fillRecords(sql, population, 20_000);
}, 60_000);
afterAll(async () => {
  await sql.close();
  await t.close();
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** The generic plan of the page statement for this caller and query, as PostgreSQL would run it in the app. */
async function genericPlan(access: DomainAccess, query: RecordListQueryInput): Promise<PlanNode[]> {
  const { sql: text, values } = recordPageStatement(access, query);
  const session = await sql.reserve();
  try {
    await session.unsafe("set plan_cache_mode = force_generic_plan");
    await session.unsafe(`prepare page_statement as ${numbered(text)}`);
    const literals = values.map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`)).join(", ");
    const [{ "QUERY PLAN": plan }] = await session.unsafe(`explain (format json) execute page_statement(${literals})`);
    await session.unsafe("deallocate page_statement");
    return nodes((typeof plan === "string" ? JSON.parse(plan) : plan)[0].Plan);
  } finally {
    session.release();
  }
}

const viewer = (userId: string, view: boolean) =>
  ({ domainId: population.domain, userId, permissions: { record: { view } } }) as unknown as DomainAccess;

test("the record list's generic plan finds the page on an index and reads each record by id, for every filter", async () => {
  const [student] = population.students;
  const queries: [DomainAccess, RecordListQueryInput, string][] = [
    [viewer(cast.admin.user.id, true), { limit: 100 }, "records_domain_created_index"],
    [viewer(cast.admin.user.id, true), { limit: 20, offset: 5000 }, "records_domain_created_index"],
    [viewer(cast.admin.user.id, true), { limit: 100, ordering: "created_at" }, "records_domain_created_index"],
    [viewer(cast.admin.user.id, true), { limit: 100, problem: population.problem }, "records_domain_problem_index"],
    [viewer(cast.admin.user.id, true), { limit: 100, problemSet: population.set }, "records_domain_problem_set_index"],
    [viewer(cast.admin.user.id, true), { limit: 100, submitterId: student }, "records_domain_committer_index"],
    // Without record.view a student sees their own records only.
    [viewer(student, false), { limit: 100 }, "records_domain_committer_index"],
  ];
  for (const [access, query, index] of queries) {
    const plan = await genericPlan(access, query);
    const onRecords = plan.filter((n) => n["Relation Name"] === "records");
    expect({ query, scans: onRecords.map((n) => `${n["Node Type"]} ${n["Index Name"]}`) }).toEqual({
      query,
      scans: [`Index Only Scan ${index}`, "Index Scan records_pkey"],
    });
    expect(plan.filter((n) => n["Node Type"].startsWith("Hash"))).toEqual([]);
    // The page's rows come in the page's order: nothing sorts them again (an index gives the page's order).
    expect(plan.filter((n) => n["Node Type"] === "Sort").length).toBe(0);
  }
});

test("the app's prepared reads run with their generic plans and compile no code (JIT off), on both pools", async () => {
  const settings = "select current_setting('jit') as jit, current_setting('plan_cache_mode') as mode";
  const wanted = { jit: "off", mode: "force_generic_plan" };
  // The ORM's pool (prepared reads inside a transaction, and every other statement)…
  expect((await t.orm.em.fork().execute(settings))[0]).toEqual(wanted);
  // …and the hot reads' own pool (db/statements.ts readRows).
  expect(await readRow(t.orm.em.fork(), settings, [])).toEqual(wanted);
});
