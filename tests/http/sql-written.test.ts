import { afterAll, beforeAll, expect, test } from "bun:test";
import { expectConforms } from "../helpers/schema-check";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission, submit } from "../helpers/records";
import { RecordDetailResp, RecordListDetailListResp } from "../../src/modules/records/records.schemas";
import { ProblemDetailWithLatestRecordResp } from "../../src/modules/problems/problems.schemas";

// The record list, the record page and the problem page are sent as JSON text (respond.ts okJson):
// Elysia checks no Response against a schema, so this file does, exactly — every object closed (no
// field more), every format checked — over the states the rows can be in.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
});
afterAll(() => t.close());

const sql = (text: string, values: unknown[] = []) => t.orm.em.fork().execute(text, values);

test("record list pages conform exactly, whatever state their rows are in", async () => {
  const problem = await judgeableProblem(t, cast, { body: { title: "两数之和 · Zwei Summen" } });
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const ids: string[] = [];
  for (const who of [cast.member, cast.admin, cast.owner])
    ids.push((await submit(t, who.token, path, submission("c"))).body.data.id);
  const set = (
    await t.api.post(
      `/domains/${cast.domain.id}/problem_sets`,
      { title: "Übung 1 — 第一周" },
      { token: cast.admin.token },
    )
  ).body.data.id;
  await sql("update records set problem_set_id = ?, late = true where id = ?", [set, ids[0]]);
  await sql(
    `update records set state = 'accepted', score = 100, time_ms = 12, memory_kb = 2048,
    judged_at = now(), cases = '[{"state":"accepted","score":100,"timeMs":12,"memoryKb":2048,"returnCode":0,"stdout":"42\\n","stderr":""}]'
    where id = ?`,
    [ids[1]],
  );
  await sql("update records set committer_id = null where id = ?", [ids[2]]);
  const base = `/domains/${cast.domain.id}/records`;
  const pages = [
    `${base}`,
    `${base}?limit=2`,
    `${base}?offset=1&limit=1`,
    `${base}?problem=${problem}`,
    `${base}?problemSet=${set}`,
    `${base}?submitterId=${cast.member.user.id}`,
    `${base}?ordering=createdAt`,
    `${base}?offset=500`,
  ];
  for (const page of pages) {
    const response = await t.api.get(page, { token: cast.admin.token });
    expectConforms(RecordListDetailListResp, response);
  }
  const all = (await t.api.get(base, { token: cast.admin.token })).body.data;
  expect(all.count).toBe(3);
  const byId = new Map(all.results.map((r: { id: string }) => [r.id, r]));
  expect(byId.get(ids[0])).toMatchObject({
    problemSetTitle: "Übung 1 — 第一周",
    late: true,
    judgedAt: null,
    problemTitle: "两数之和 · Zwei Summen",
  });
  expect(byId.get(ids[1])).toMatchObject({
    state: "accepted",
    score: 100,
    timeMs: 12,
    memoryKb: 2048,
    committerUsername: cast.admin.user.username,
  });
  expect(byId.get(ids[2])).toMatchObject({ committerId: null, committerUsername: null });
  // Without record.view: one's own only, in the same shape; an empty page is `[]`, not null.
  expectConforms(RecordListDetailListResp, await t.api.get(base, { token: cast.member.token }));
  expect((await t.api.get(base, { token: cast.member.token })).body.data).toMatchObject({
    count: 1,
    results: [{ id: ids[0] }],
  });
  const none = await t.api.get(`${base}?problemSet=${crypto.randomUUID()}`, { token: cast.admin.token });
  expectConforms(RecordListDetailListResp, none);
  expect(none.body.data).toEqual({ count: 0, results: [] });
});

test("record pages conform exactly: waiting, judged, rejudged; what else a stored case holds stays out", async () => {
  const problem = await judgeableProblem(t, cast);
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const waiting = (await submit(t, cast.member.token, path, submission("c"))).body.data.id as string;
  const judged = (await submit(t, cast.member.token, path, submission("c"))).body.data.id as string;
  const page = (id: string, token = cast.admin.token) =>
    t.api.get(`/domains/${cast.domain.id}/records/${id}`, { token });
  expectConforms(RecordDetailResp, await page(waiting));
  expect((await page(waiting)).body.data).toMatchObject({ state: "queueing", judgedAt: null, history: [] });
  // A stored case and an earlier judgement with fields of their own (an older judger's, say).
  await sql(
    `update records set state = 'rejected', score = 50, time_ms = 7, memory_kb = 1024, judged_at = now(), attempts = 2,
       cases = ?::jsonb, history = ?::jsonb where id = ?`,
    [
      JSON.stringify([
        {
          state: "accepted",
          score: 50,
          timeMs: 3,
          memoryKb: 1024,
          returnCode: 0,
          stdout: "3\n",
          stderr: "",
          path: "/srv",
        },
        {
          state: "wrong_answer",
          score: 0,
          timeMs: 4,
          memoryKb: 900,
          returnCode: 0,
          stdout: "4\n",
          stderr: "",
          token: "x",
        },
        // An older judger's report, with fields missing: they come out as the schema's defaults.
        { state: "accepted", score: 0 },
      ]),
      JSON.stringify([
        {
          state: "accepted",
          score: 100,
          timeMs: 5,
          memoryKb: 800,
          problemConfigId: null,
          judgedAt: "2026-11-20T08:00:00.000+00:00",
          rejudgedAt: "2026-11-21T09:30:00.125+00:00",
          rejudgedBy: cast.admin.user.id,
          note: "kept",
        },
      ]),
      judged,
    ],
  );
  for (const token of [cast.admin.token, cast.member.token]) {
    const response = await page(judged, token);
    expectConforms(RecordDetailResp, response);
    expect(response.body.data).toMatchObject({ state: "rejected", score: 50, attempts: 2 });
    expect(response.body.data.cases.map((c: { timeMs: number }) => c.timeMs)).toEqual([3, 4, 0]);
    expect(response.body.data.cases[2]).toEqual({
      state: "accepted",
      score: 0,
      timeMs: 0,
      memoryKb: 0,
      returnCode: 0,
      stdout: "",
      stderr: "",
    });
    expect(response.body.data.history[0]).toMatchObject({ rejudgedAt: "2026-11-21T09:30:00.125+00:00" });
  }
  expect((await page(judged, cast.member.token)).body.data.codeUrl).toEndWith(`/records/${judged}/code`);
});

test("problem pages conform exactly: hidden, with and without a latest record, with languages", async () => {
  const problem = await judgeableProblem(t, cast, {
    body: { title: "Pfad — 路径", content: "# Aufgabe\n\n给定 n ≤ 10⁵…" },
  });
  const hidden = (
    await t.api.post(
      `/domains/${cast.domain.id}/problems`,
      { title: "Entwurf", hidden: true, url: "entwurf" },
      { token: cast.admin.token },
    )
  ).body.data.id;
  const page = (ref: string, token = cast.member.token) =>
    t.api.get(`/domains/${cast.domain.id}/problems/${ref}`, { token });
  expectConforms(ProblemDetailWithLatestRecordResp, await page(problem));
  expect((await page(problem)).body.data).toMatchObject({
    latestRecord: null,
    languages: ["c"],
    content: "# Aufgabe\n\n给定 n ≤ 10⁵…",
  });
  await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`, submission("c"));
  expectConforms(ProblemDetailWithLatestRecordResp, await page(problem));
  expect((await page(problem)).body.data.latestRecord).toMatchObject({ state: "queueing" });
  for (const ref of [hidden, "entwurf"])
    expectConforms(ProblemDetailWithLatestRecordResp, await page(ref, cast.admin.token));
  expect((await page(hidden)).body.errorCode).toBe("ProblemNotFoundError");
});

test("text PostgreSQL escapes is the text that was stored: quotes, backslashes, controls, emoji, a statement near its 64k limit", async () => {
  const title = `"Zitat" \\ C:\\path\tTab \u0007 bell 🙂 — ${"p".repeat(3)}C 名字`;
  const content = `# 题目\n\n${'给定 "n" ≤ 10⁵, \\ 和 </script>\r\n'.repeat(2_100)}`;
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title, content },
    { token: cast.admin.token },
  );
  expect(created.body).toMatchObject({ errorCode: "Success" });
  const id = created.body.data.id as string;
  const page = await t.api.get(`/domains/${cast.domain.id}/problems/${id}`, { token: cast.admin.token });
  expectConforms(ProblemDetailWithLatestRecordResp, page);
  expect(page.body.data.title).toBe(title);
  expect(page.body.data.content).toBe(content);
  await sql("update records set problem_id = ? where id = (select id from records order by created_at limit 1)", [id]);
  const list = await t.api.get(`/domains/${cast.domain.id}/records?problem=${id}`, { token: cast.admin.token });
  expectConforms(RecordListDetailListResp, list);
  expect(list.body.data.results.map((r: { problemTitle: string }) => r.problemTitle)).toEqual([title]);
});
