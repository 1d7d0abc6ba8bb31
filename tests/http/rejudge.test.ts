import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { configWith, judgeableProblem, recordRow, submission, submit } from "../helpers/records";

// Rejudging one record: who may, what it resets, what it keeps, and the judge protocol's view of it.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let problem: string;
let set: string;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  problem = await judgeableProblem(t, cast, { languages: ["c", "cpp"] });
  set = (await t.api.post(`/domains/${cast.domain.id}/problem_sets`, { title: "Week 3" }, { token: cast.owner.token }))
    .body.data.id;
  await t.api.post(`/domains/${cast.domain.id}/problem_sets/${set}/problems`, { problem }, { token: cast.owner.token });
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;
const rejudge = (id: string, body?: object, token = cast.admin.token) =>
  t.api.post(`${base(id)}/rejudge`, body, { token });
const counters = async () => ({
  problem: (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.owner.token })).body.data
    .numAccept as number,
  set: (await t.api.get(`${domain()}/problem_sets/${set}`, { token: cast.owner.token })).body.data.numAccept as number,
});
const latestConfig = async () =>
  (
    await t.orm.em
      .fork()
      .execute<{ id: string }[]>("select id from problem_configs where problem_id = ? order by version desc limit 1", [
        problem,
      ])
  )[0].id;

async function submitted(language = "c", files: Record<string, string> = { "main.c": "int main(void){return 0;}" }) {
  const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
  const id = (await submit(t, cast.member.token, path, submission(language, files))).body.data.id as string;
  return { id, taskId: (await recordRow(t, id)).task_id! };
}

/** The judger claims the record's current task and reports both cases and the verdict. */
async function judge(id: string, verdict: "accepted" | "rejected") {
  const { task_id: taskId } = await recordRow(t, id);
  expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
    "Success",
  );
  for (const i of [0, 1]) {
    const state = verdict === "accepted" || i === 0 ? "accepted" : "wrong_answer";
    await t.api.put(
      `${base(id)}/cases/${i}/judge`,
      { state, score: state === "accepted" ? 10 : 0, timeMs: 4 + i, memoryKb: 900 + i, taskId },
      { token: judger.token },
    );
  }
  expect(
    (await t.api.put(`${base(id)}/judge`, { state: verdict, taskId }, { token: judger.token })).body.errorCode,
  ).toBe("Success");
}

describe("POST …/records/{record}/rejudge", () => {
  test("needs a login, the domain and record.rejudge; a refusal changes nothing", async () => {
    const { id, taskId } = await submitted();
    expect((await t.api.post(`${base(id)}/rejudge`, {})).status).toBe(401);
    const member = await rejudge(id, {}, cast.member.token);
    expect(member.status).toBe(403);
    expect(member.body.detail).toBe("record rejudge Permission Denied.");
    expect((await rejudge(id, {}, cast.outsider.token)).body.errorCode).toBe("DomainNotFoundError");
    expect((await recordRow(t, id)).task_id).toBe(taskId);
  });

  test("a judged record waits again under a new task, pinned to the latest config, its result kept in its history", async () => {
    const { id, taskId } = await submitted();
    await judge(id, "accepted");
    const before = await counters();
    const judgedWith = (await t.api.get(base(id), { token: cast.admin.token })).body.data;
    // The teacher fixes the data: a new config version.
    await t.api.post(
      `${domain()}/problems/${problem}/configs/json`,
      configWith(["c", "cpp"], ["pretest", "pretest", "private"]),
      { token: cast.owner.token },
    );
    const answer = await rejudge(id);
    expect(answer.body.errorCode).toBe("Success");
    const record = answer.body.data;
    expect(record).toMatchObject({
      id,
      state: "queueing",
      score: 0,
      timeMs: 0,
      memoryKb: 0,
      cases: [],
      judgedAt: null,
      judgerId: null,
      attempts: 0,
    });
    expect(record.taskId).not.toBe(taskId);
    expect(record.problemConfigId).toBe(await latestConfig());
    expect(record.problemConfigId).not.toBe(judgedWith.problemConfigId);
    expect(record.history).toEqual([
      {
        state: "accepted",
        score: 20,
        timeMs: 9,
        memoryKb: 901,
        problemConfigId: judgedWith.problemConfigId,
        judgedAt: judgedWith.judgedAt,
        rejudgedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\+00:00$/),
        rejudgedBy: cast.admin.user.id,
      },
    ]);
    // The acceptance no longer counts, in the problem and in the set it was submitted through.
    expect(await counters()).toEqual({ problem: before.problem - 1, set: before.set - 1 });
    // The new task is judged as any other: now wrong, and still not counted.
    await judge(id, "rejected");
    expect(await counters()).toEqual({ problem: before.problem - 1, set: before.set - 1 });
    // Judged again with its own version, accepted again: counted again; the history grows, oldest first.
    const again = await rejudge(id, { config: "record" });
    expect(again.body.data.problemConfigId).toBe(record.problemConfigId);
    await judge(id, "accepted");
    expect(await counters()).toEqual(before);
    const history = (await t.api.get(base(id), { token: cast.member.token })).body.data.history;
    expect(history.map((h: { state: string }) => h.state)).toEqual(["accepted", "rejected"]);
  });

  test("a record being judged is re-queued: the old judger's late reports and old task are refused, the new task is judged", async () => {
    const { id, taskId } = await submitted();
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Success",
    );
    await t.api.put(`${base(id)}/judge`, { state: "running", taskId }, { token: judger.token });
    await t.api.put(`${base(id)}/cases/0/judge`, { state: "accepted", score: 10, taskId }, { token: judger.token });
    const record = (await rejudge(id)).body.data;
    // Nothing was judged yet, so there is nothing to keep.
    expect(record).toMatchObject({ state: "queueing", cases: [], score: 0, judgerId: null, attempts: 0, history: [] });
    const late = await t.api.put(
      `${base(id)}/cases/1/judge`,
      { state: "accepted", score: 10, taskId },
      { token: judger.token },
    );
    expect(late.body).toMatchObject({ errorCode: "Error", errorMsg: expect.stringContaining("not claimed by you") });
    expect(
      (await t.api.put(`${base(id)}/judge`, { state: "accepted", taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Error");
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorMsg).toContain(
      "not the record's current task",
    );
    // The same judger account takes the new task (the built-in judge runs many slots under one account):
    // a report still naming the old task is refused, the new task's are taken.
    expect(
      (await t.api.post(`${base(id)}/judge/claim`, { taskId: record.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
    const stale = await t.api.put(
      `${base(id)}/cases/0/judge`,
      { state: "wrong_answer", taskId },
      { token: judger.token },
    );
    expect(stale.body.errorMsg).toContain("superseded");
    expect(
      (await t.api.put(`${base(id)}/judge`, { state: "rejected", taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Error");
    await t.api.put(
      `${base(id)}/cases/0/judge`,
      { state: "accepted", score: 10, taskId: record.taskId },
      { token: judger.token },
    );
    await t.api.put(
      `${base(id)}/cases/1/judge`,
      { state: "accepted", score: 10, taskId: record.taskId },
      { token: judger.token },
    );
    expect(
      (await t.api.put(`${base(id)}/judge`, { state: "accepted", taskId: record.taskId }, { token: judger.token })).body
        .errorCode,
    ).toBe("Success");
    expect(await recordRow(t, id)).toMatchObject({ state: "accepted", score: 20, attempts: 1 });
  });

  test("a waiting record is re-queued under a new task; the old task can no longer be claimed", async () => {
    const { id, taskId } = await submitted();
    const record = (await rejudge(id)).body.data;
    expect(record.taskId).not.toBe(taskId);
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Error",
    );
    expect(
      (await t.api.post(`${base(id)}/judge/claim`, { taskId: record.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
  });

  test("the submitter's latest record follows the rejudge and the new verdict", async () => {
    const { id } = await submitted();
    await judge(id, "accepted");
    const latest = async () =>
      (await t.api.get(`${domain()}/problem_sets/${set}/problems/${problem}`, { token: cast.member.token })).body.data
        .latestRecord;
    expect(await latest()).toMatchObject({ id, state: "accepted" });
    await rejudge(id);
    expect(await latest()).toMatchObject({ id, state: "queueing" });
    await judge(id, "rejected");
    expect(await latest()).toMatchObject({ id, state: "rejected" });
  });

  test("the body may be left out; wrong types are a 422 naming the field", async () => {
    const { id } = await submitted();
    expect((await t.api.post(`${base(id)}/rejudge`, undefined, { token: cast.admin.token })).body.errorCode).toBe(
      "Success",
    );
    const wrong = await rejudge(id, { config: "newest" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(["body", "config"]);
    expect((await t.api.post(`${domain()}/records/not-a-record/rejudge`, {}, { token: cast.admin.token })).status).toBe(
      422,
    );
  });

  test("a record of another domain, or none, is not found; a language the latest config dropped is refused and nothing changes", async () => {
    const other = await makeCast(t);
    const elsewhere = await judgeableProblem(t, other);
    const foreign = (await submit(t, other.member.token, `/domains/${other.domain.id}/problems/${elsewhere}`)).body.data
      .id;
    expect((await rejudge(foreign)).body.errorCode).toBe("RecordNotFoundError");
    expect((await rejudge(crypto.randomUUID())).body.errorCode).toBe("RecordNotFoundError");
    const { id } = await submitted("cpp", { "main.cpp": "int main(){}" });
    await judge(id, "accepted");
    await t.api.post(`${domain()}/problems/${problem}/configs/json`, configWith(["c"]), { token: cast.owner.token });
    const before = { row: await recordRow(t, id), counters: await counters() };
    const refused = await rejudge(id);
    expect(refused.body).toMatchObject({
      errorCode: "UnsupportedLanguageError",
      errorMsg: expect.stringContaining('"config": "record"'),
    });
    expect({ row: await recordRow(t, id), counters: await counters() }).toEqual(before);
    // Its own version still has the language.
    expect((await rejudge(id, { config: "record" })).body.data).toMatchObject({ state: "queueing", language: "cpp" });
    await t.api.post(`${domain()}/problems/${problem}/configs/json`, configWith(["c", "cpp"]), {
      token: cast.owner.token,
    });
  });
});
