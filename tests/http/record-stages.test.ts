import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, TEST_JWT_SECRET, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";

// A record's stages as the judge protocol carries them (docs/config-reference.md "Stages"): the score is the
// cases' less the deductions whatever order the reports come in, a forbidden stage makes it 0, a rejudge
// clears them, what a judger sends is validated and loses the server's secrets, and readers see them.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;

async function claimed() {
  const problem = await judgeableProblem(t, cast, { categories: ["pretest", "pretest", "secret"] });
  const record = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data;
  const taskId = (await recordRow(t, record.id)).task_id!;
  const claim = await t.api.post(`${base(record.id)}/judge/claim`, { taskId }, { token: judger.token });
  expect(claim.body.errorCode).toBe("Success");
  return { id: record.id as string, taskId };
}
const putCase = (id: string, index: number, score: number) =>
  t.api.put(`${base(id)}/cases/${index}/judge`, { state: "accepted", score }, { token: judger.token });
const putRecord = (id: string, body: object) => t.api.put(`${base(id)}/judge`, body, { token: judger.token });

const stage = (name: string, deduction: number, extra: object = {}) => ({
  name,
  kind: "keywords",
  state: "done",
  deduction,
  forbidden: false,
  message: `${deduction} off`,
  comments: [{ file: "main.c", line: 3, check: "goto", message: "goto is not allowed", points: deduction }],
  ...extra,
});

describe("a record's stages", () => {
  test("the score is the cases' less every deduction, also when a case report comes after the final one", async () => {
    const { id } = await claimed();
    for (const [i, score] of [40, 30].entries()) expect((await putCase(id, i, score)).body.errorCode).toBe("Success");
    const stages = [stage("goto", 10), stage("tidy", 5, { kind: "clang-tidy" })];
    expect((await putRecord(id, { state: "running", stages })).body.errorCode).toBe("Success");
    expect((await recordRow(t, id)).score).toBe(55);
    expect((await putRecord(id, { state: "accepted" })).body.errorCode).toBe("Success");
    // Tiger sends case reports concurrently with the final one: the last case lands after it.
    expect((await putCase(id, 2, 30)).body.errorCode).toBe("Success");
    const record = (await t.api.get(base(id), { token: cast.member.token })).body.data;
    expect(record).toMatchObject({ state: "accepted", score: 85 });
    expect(record.stages).toEqual(stages);
  });

  test("a forbidden stage makes the score 0; deductions beyond the score stop at 0", async () => {
    const forbidden = await claimed();
    for (const i of [0, 1, 2]) await putCase(forbidden.id, i, 30);
    await putRecord(forbidden.id, { state: "rejected", stages: [stage("headers", 0, { forbidden: true })] });
    expect((await recordRow(t, forbidden.id)).score).toBe(0);
    const heavy = await claimed();
    for (const i of [0, 1, 2]) await putCase(heavy.id, i, 10);
    await putRecord(heavy.id, { state: "accepted", stages: [stage("goto", 25), stage("tidy", 20)] });
    expect((await recordRow(t, heavy.id)).score).toBe(0);
  });

  test("a rejudge clears the stages with the cases", async () => {
    const { id } = await claimed();
    await putCase(id, 0, 40);
    await putRecord(id, { state: "accepted", stages: [stage("goto", 5)] });
    const rejudged = await t.api.post(`${base(id)}/rejudge`, {}, { token: cast.admin.token });
    expect(rejudged.body.errorCode).toBe("Success");
    const record = (await t.api.get(base(id), { token: cast.admin.token })).body.data;
    expect(record).toMatchObject({ state: "queueing", score: 0, stages: [] });
  });

  test("what a judger sends is checked: a wrong state or too many comments is a 422 that changes nothing", async () => {
    const { id } = await claimed();
    const many = Array.from({ length: 101 }, (_, i) => ({ file: "a.c", line: i, check: "c", message: "m", points: 1 }));
    for (const bad of [
      { ...stage("x", 1), state: "maybe" },
      { ...stage("x", 1), deduction: -3 },
      { ...stage("x", 1), comments: many },
      { ...stage("x", 1), message: "m".repeat(501) },
    ]) {
      const answer = await putRecord(id, { state: "running", stages: [bad] });
      expect(answer.status).toBe(422);
    }
    expect((await recordRow(t, id)).state).toBe("fetched");
    expect((await t.api.get(base(id), { token: cast.admin.token })).body.data.stages).toEqual([]);
  });

  test("a stage's messages lose the server's secrets before they are stored", async () => {
    const { id } = await claimed();
    const leaked = stage("style", 1, {
      message: `found ${TEST_JWT_SECRET}`,
      comments: [{ file: "main.c", line: 1, check: "", message: `key ${TEST_JWT_SECRET}`, points: 1 }],
    });
    await putRecord(id, { state: "running", stages: [leaked] });
    const shown = JSON.stringify((await t.api.get(base(id), { token: cast.admin.token })).body.data.stages);
    expect(shown).not.toContain(TEST_JWT_SECRET);
    expect(t.logs.some((line) => line.msg === "a secret of the server was cut out of a case's output")).toBe(true);
  });

  test("the author sees the stages of their own record, as they see a compile error", async () => {
    const { id } = await claimed();
    await putCase(id, 0, 40);
    await putRecord(id, { state: "accepted", stages: [stage("goto", 5)] });
    const own = (await t.api.get(base(id), { token: cast.member.token })).body.data;
    expect(own.stages[0].comments[0]).toMatchObject({ file: "main.c", line: 3, message: "goto is not allowed" });
  });
});
