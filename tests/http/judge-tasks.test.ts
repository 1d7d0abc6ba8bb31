import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";

// The two judge-protocol extensions for judgers that reach only the API: the next task (long poll)
// and giving a record back.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let other: TestUser;
let problem: string;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  [judger, other] = await Promise.all([createUser(t, { role: "judger" }), createUser(t, { role: "judger" })]);
  problem = await judgeableProblem(t, cast);
});
afterAll(() => t.close());

const base = (id: string) => `/domains/${cast.domain.id}/records/${id}`;
const next = (token: string, waitSeconds = 0) => t.api.post("/judge/next_task", { waitSeconds }, { token });

async function submitted() {
  const id = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`)).body.data
    .id as string;
  return { id, taskId: (await recordRow(t, id)).task_id! };
}

/** Claims (and so takes out of the waiting set) whatever earlier tests left waiting. */
async function drain() {
  for (let task = (await next(judger.token)).body.data; task; task = (await next(judger.token)).body.data) {
    await t.api.post(
      `/domains/${task.domainId}/records/${task.recordId}/judge/claim`,
      { taskId: task.taskId },
      { token: judger.token },
    );
  }
}

describe("POST /judge/next_task", () => {
  test("is for site judgers only; waitSeconds is checked", async () => {
    expect((await next(cast.owner.token)).status).toBe(403);
    expect((await t.api.post("/judge/next_task", { waitSeconds: 0 })).status).toBe(401);
    expect((await next(judger.token, 31)).status).toBe(422);
    expect((await t.api.post("/judge/next_task", { waitSeconds: "soon" }, { token: judger.token })).status).toBe(422);
  });

  test("hands out the oldest waiting task, each to one poller at a time, and null when there is none", async () => {
    await drain();
    expect((await next(judger.token)).body).toEqual({ errorCode: "Success", errorMsg: null, data: null });
    const first = await submitted();
    const second = await submitted();
    const a = (await next(judger.token)).body.data;
    expect(a).toEqual({ recordId: first.id, domainId: cast.domain.id, taskId: first.taskId, language: "c" });
    // Offered to one poller, it is not offered to the next one (who gets the next task).
    expect((await next(other.token)).body.data).toMatchObject({ recordId: second.id, taskId: second.taskId });
    expect((await next(other.token)).body.data).toBeNull();
    // The task is claimed on Horse's route, as ever.
    expect(
      (await t.api.post(`${base(first.id)}/judge/claim`, { taskId: a.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
  });

  test("a long poll returns the task submitted while it waits", async () => {
    await drain();
    const polling = next(judger.token, 10);
    await Bun.sleep(200);
    const record = await submitted();
    expect((await polling).body.data).toMatchObject({ recordId: record.id, taskId: record.taskId });
  });
});

describe("POST …/judge/release", () => {
  test("the holder gives the record back: waiting under a new task, results cleared, the attempt not counted", async () => {
    await drain();
    const { id, taskId } = await submitted();
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Success",
    );
    await t.api.put(`${base(id)}/cases/0/judge`, { state: "accepted", score: 10 }, { token: judger.token });
    // Only the holder, and only with the current task.
    expect((await t.api.post(`${base(id)}/judge/release`, { taskId }, { token: other.token })).body.errorCode).toBe(
      "Error",
    );
    expect(
      (await t.api.post(`${base(id)}/judge/release`, { taskId: crypto.randomUUID() }, { token: judger.token })).body
        .errorCode,
    ).toBe("Error");
    expect(
      (await t.api.post(`${base(crypto.randomUUID())}/judge/release`, { taskId }, { token: judger.token })).body
        .errorCode,
    ).toBe("RecordNotFoundError");
    expect((await t.api.post(`${base(id)}/judge/release`, { taskId }, { token: cast.member.token })).status).toBe(403);
    expect(await recordRow(t, id)).toMatchObject({ state: "fetched", judger_id: judger.user.id, attempts: 1 });

    expect((await t.api.post(`${base(id)}/judge/release`, { taskId }, { token: judger.token })).body).toEqual({
      errorCode: "Success",
      errorMsg: null,
      data: {},
    });
    const row = await recordRow(t, id);
    expect(row).toMatchObject({ state: "queueing", judger_id: null, attempts: 0, cases: [], score: 0 });
    expect(row.task_id).not.toBe(taskId);
    // The old task is dead; the new one is handed out and claimable by anyone.
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Error",
    );
    expect((await t.api.post(`${base(id)}/judge/release`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Error",
    );
    expect((await next(other.token)).body.data).toMatchObject({ recordId: id, taskId: row.task_id });
    expect(
      (await t.api.post(`${base(id)}/judge/claim`, { taskId: row.task_id }, { token: other.token })).body.errorCode,
    ).toBe("Success");
  });

  test("a finished record cannot be given back", async () => {
    await drain();
    const { id, taskId } = await submitted();
    await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token });
    await t.api.put(`${base(id)}/judge`, { state: "rejected" }, { token: judger.token });
    expect((await t.api.post(`${base(id)}/judge/release`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Error",
    );
    expect((await recordRow(t, id)).state).toBe("rejected");
  });
});
