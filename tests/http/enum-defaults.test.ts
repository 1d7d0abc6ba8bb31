import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";

// Elysia's t.UnionEnum carries its first value as a default, and TypeBox's normalisation fills
// defaults into a body: an optional enum field a client leaves out must stay out, not become that value.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
});
afterAll(async () => {
  await t.close();
});

describe("an optional enum left out of a body changes nothing", () => {
  test("a case report without `state` keeps the case's state (it is not `accepted`)", async () => {
    const problem = await judgeableProblem(t, cast);
    const id = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`)).body.data.id;
    const { task_id: taskId } = await recordRow(t, id);
    const base = `/domains/${cast.domain.id}/records/${id}`;
    await t.api.post(`${base}/judge/claim`, { taskId }, { token: judger.token });
    await t.api.put(`${base}/cases/0/judge`, { state: "wrong_answer", score: 0 }, { token: judger.token });
    expect(
      (await t.api.put(`${base}/cases/0/judge`, { stdout: "more output" }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
    const row = await recordRow(t, id);
    expect(row.cases[0]).toMatchObject({ state: "wrong_answer", stdout: "more output" });
    // A state report with totals only keeps the state too.
    await t.api.put(`${base}/judge`, { state: "running" }, { token: judger.token });
    expect((await t.api.put(`${base}/judge`, { score: 5 }, { token: judger.token })).body.errorCode).toBe("Success");
    expect((await recordRow(t, id)).state).toBe("running");
  });

  test("editing a problem set's title keeps its scoreboard rule", async () => {
    const sets = `/domains/${cast.domain.id}/problem_sets`;
    const set = (await t.api.post(sets, { title: "Midterm", scoreboardRule: "last" }, { token: cast.admin.token })).body
      .data;
    expect(set.scoreboardRule).toBe("last");
    const edited = await t.api.patch(
      `${sets}/${set.id}`,
      { title: "Midterm (rescheduled)" },
      { token: cast.admin.token },
    );
    expect(edited.body.data).toMatchObject({ title: "Midterm (rescheduled)", scoreboardRule: "last" });
  });
});
