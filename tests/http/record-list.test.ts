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

const list = (query: string, token = cast.admin.token) => t.api.get(`/domains/${cast.domain.id}/records${query}`, { token });

test("counts stay exact after inserts and deletes, per filter and per visibility", async () => {
  const problem = await judgeableProblem(t, cast);
  const other = await judgeableProblem(t, cast);
  const path = (p: string) => `/domains/${cast.domain.id}/problems/${p}`;
  const before = (await list("")).body.data.count;
  const mine = [await submit(t, cast.member.token, path(problem), submission("c")), await submit(t, cast.member.token, path(other), submission("c"))];
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
    "committerId", "committerUsername", "createdAt", "domainId", "id", "judgedAt", "language", "late", "memoryKb",
    "problemId", "problemSetId", "problemSetTitle", "problemTitle", "score", "state", "timeMs", "updatedAt",
  ]);
  expect(row.committerUsername).toBe(cast.member.user.username);
  expect(row.createdAt).toMatch(/\+00:00$/);
});
