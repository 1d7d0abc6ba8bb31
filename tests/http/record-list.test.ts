import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission, submit } from "../helpers/records";

// The records list reads narrow rows with SQL of its own: what it must keep of the entity path.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
});
afterAll(() => t.close());

const list = (query: string, token = cast.admin.token) =>
  t.api.get(`/domains/${cast.domain.id}/records${query}`, { token });

test("counts stay exact after inserts and deletes, per filter and per visibility", async () => {
  const problem = await judgeableProblem(t, cast);
  const other = await judgeableProblem(t, cast);
  const path = (p: string) => `/domains/${cast.domain.id}/problems/${p}`;
  const before = (await list("")).body.data.count;
  const mine = [
    await submit(t, cast.member.token, path(problem), submission("c")),
    await submit(t, cast.member.token, path(other), submission("c")),
  ];
  await submit(t, cast.admin.token, path(problem), submission("c"));
  expect((await list("")).body.data.count).toBe(before + 3);
  expect((await list(`?problem=${problem}`)).body.data.count).toBe(2);
  expect((await list(`?submitterId=${cast.member.user.id}&problem=${problem}`)).body.data.count).toBe(1);
  // Without record.view a member sees, and counts, their own records only.
  const own = (await list("", cast.member.token)).body.data;
  expect(own.count).toBe(2);
  expect(own.results.every((r: { committerId: string }) => r.committerId === cast.member.user.id)).toBe(true);
  await t.orm.em.fork().execute("delete from records where id = ?", [mine[0].body.data.id]);
  expect((await list("", cast.member.token)).body.data.count).toBe(1);
  expect((await list("")).body.data.count).toBe(before + 2);
});

test("a row carries exactly the list's fields: no case output, no statement, nothing of the user but the name", async () => {
  const problem = await judgeableProblem(t, cast);
  await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`, submission("c"));
  const [row] = (await list(`?problem=${problem}`)).body.data.results;
  expect(Object.keys(row).sort()).toEqual([
    "committerId",
    "committerUsername",
    "createdAt",
    "domainId",
    "id",
    "judgedAt",
    "language",
    "late",
    "memoryKb",
    "problemId",
    "problemSetId",
    "problemSetTitle",
    "problemTitle",
    "score",
    "state",
    "timeMs",
    "updatedAt",
  ]);
  expect(row.committerUsername).toBe(cast.member.user.username);
  expect(row.createdAt).toMatch(/\+00:00$/);
});

test("counts follow bulk inserts, bulk deletes and a deleted problem (its records move to no problem)", async () => {
  const problem = await judgeableProblem(t, cast);
  const em = t.orm.em.fork();
  const before = (await list("")).body.data.count;
  await em.execute(
    `insert into records (id, created_at, updated_at, domain_id, problem_id, committer_id, state, language)
     select gen_random_uuid(), now() - make_interval(secs => g), now(), ?, ?, ?, 'accepted', 'c' from generate_series(1, 250) g`,
    [cast.domain.id, problem, cast.member.user.id],
  );
  expect((await list("")).body.data.count).toBe(before + 250);
  expect((await list(`?problem=${problem}`)).body.data.count).toBe(250);
  const mineBefore = (await list(`?submitterId=${cast.member.user.id}`)).body.data.count;
  await em.execute("delete from records where id in (select id from records where problem_id = ? limit 50)", [problem]);
  expect((await list(`?problem=${problem}`)).body.data.count).toBe(200);
  expect((await list(`?submitterId=${cast.member.user.id}`)).body.data.count).toBe(mineBefore - 50);
  // Deleting the problem sets its records' problem to null: they stay in the domain and the submitter's counts.
  const deleted = await t.api.delete(`/domains/${cast.domain.id}/problems/${problem}`, { token: cast.admin.token });
  expect(deleted.status).toBe(200);
  expect((await list(`?problem=${problem}`)).body.data.count).toBe(0);
  expect((await list("")).body.data.count).toBe(before + 200);
  expect((await list(`?submitterId=${cast.member.user.id}`)).body.data.count).toBe(mineBefore - 50);
  const [{ n }] = await em.execute<{ n: number }[]>("select count(*)::int as n from records where domain_id = ?", [
    cast.domain.id,
  ]);
  expect(n).toBe(before + 200);
});

test("every page, however deep and in either order, holds exactly the rows the plain offset query returns", async () => {
  const problem = await judgeableProblem(t, cast);
  const em = t.orm.em.fork();
  // Ties on created_at on purpose: the id decides among them.
  await em.execute(
    `insert into records (id, created_at, updated_at, domain_id, problem_id, committer_id, state, language)
     select gen_random_uuid(), timestamptz '2026-11-01' + make_interval(secs => g / 3), now(), ?, ?, ?, 'accepted', 'c'
       from generate_series(1, 330) g`,
    [cast.domain.id, problem, cast.member.user.id],
  );
  for (const [ordering, sql] of [
    ["", "created_at desc, id desc"],
    ["created_at", "created_at asc, id asc"],
    ["-updated_at,created_at", "updated_at desc, created_at asc, id asc"],
    ["-updated_at", "updated_at desc, id desc"],
  ]) {
    for (const offset of [0, 100, 290, 330]) {
      const page = (
        await list(`?problem=${problem}&limit=50&offset=${offset}${ordering ? `&ordering=${ordering}` : ""}`)
      ).body.data;
      const expected = await em.execute<{ id: string }[]>(
        `select id from records where problem_id = ? order by ${sql} limit 50 offset ?`,
        [problem, offset],
      );
      expect(page.results.map((r: { id: string }) => r.id)).toEqual(expected.map((r) => r.id));
      expect(page.count).toBe(330);
    }
  }
});

test("a page past the end, or of a filter with no record, is empty and still says the count", async () => {
  const problem = await judgeableProblem(t, cast);
  for (let i = 0; i < 3; i++)
    await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`, submission("c"));
  const all = (await list(`?problem=${problem}&limit=2`)).body.data;
  expect({ count: all.count, rows: all.results.length }).toEqual({ count: 3, rows: 2 });
  // The rows come newest first, the page's order, with nothing sorting them again.
  const times = all.results.map((r: { createdAt: string }) => r.createdAt);
  expect(times).toEqual([...times].sort().reverse());
  expect((await list(`?problem=${problem}&limit=2&offset=2`)).body.data.results).toHaveLength(1);
  expect((await list(`?problem=${problem}&limit=2&offset=3`)).body.data).toEqual({ count: 3, results: [] });
  const none = (await list(`?problem=${problem}&submitterId=${cast.admin.user.id}`)).body;
  expect(none).toMatchObject({ errorCode: "Success", data: { count: 0, results: [] } });
});
