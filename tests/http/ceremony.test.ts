import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import * as check from "../helpers/ccs-validate";

// The ceremony's order (docs/contest-api.md "The ceremony"): the contest ends frozen, staff finalize (the
// Contest API's state: ended, frozen, finalized, not thawed: what the ICPC resolver waits for), the resolver
// reveals, then the thaw. A rejudge after the finalize un-finalizes, audited; finalizing before the end, or as
// a student, is refused.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let student: TestUser;
let problem: string;
let ended: string;
let record: string;
const HOUR = 3_600_000;
const domain = () => `/domains/${cast.domain.id}`;

async function judged(set: string, verdict: "accepted" | "rejected") {
  const id = (await submit(t, student.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`)).body.data
    .id as string;
  const { task_id } = await recordRow(t, id);
  const base = `${domain()}/records/${id}`;
  expect((await t.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token })).body.errorCode).toBe(
    "Success",
  );
  expect(
    (await t.api.put(`${base}/judge`, { state: verdict, score: 100 }, { token: judger.token })).body.errorCode,
  ).toBe("Success");
  return id;
}

async function state(token = cast.admin.token) {
  const response = await t.app.handle(
    new Request(`http://localhost/api/ccs/domains/${cast.domain.id}/contests/${ended}/state`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return (await response.json()) as check.State;
}

const finalize = (set: string, token = cast.admin.token) =>
  t.api.post(`${domain()}/problem_sets/${set}/scoreboard/finalize`, undefined, { token });

async function auditCount(action: string) {
  const [{ n }] = await t.orm.em
    .fork()
    .execute<{ n: number }[]>("select count(*)::int as n from audit_events where action = ? and target_id = ?", [
      action,
      ended,
    ]);
  return n;
}

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  student = await createUser(t, { username: `Nguyễn Thị Hà ${cast.domain.id.slice(0, 4)}` });
  await addMembership(t, cast.domain, student, "user");
  problem = await judgeableProblem(t, cast);
  const now = Date.now();
  ended = (
    await t.api.post(
      `${domain()}/problem_sets`,
      {
        title: "Regional final",
        scoreboardRule: "icpc",
        unlockAt: new Date(now - 5 * HOUR).toISOString(),
        dueAt: new Date(now + HOUR).toISOString(),
        freezeAt: new Date(now - 4 * HOUR).toISOString(),
      },
      { token: cast.admin.token },
    )
  ).body.data.id;
  await t.api.post(`${domain()}/problem_sets/${ended}/problems`, { problem }, { token: cast.admin.token });
  // A run after the freeze; then the contest ends (its due time moved into the past).
  record = await judged(ended, "accepted");
  await t.orm.em.fork().execute("update problem_sets set due_at = ? where id = ?", [new Date(now - 60_000), ended]);
});
afterAll(async () => {
  await t?.close();
});

describe("the ceremony: end, finalize, resolve, thaw", () => {
  test("ended and frozen, not finalized: the resolver would wait", async () => {
    const now = await state();
    expect(now).toMatchObject({ finalized: null, thawed: null });
    expect(now.ended).not.toBeNull();
    expect(now.frozen).not.toBeNull();
  });

  test("a student may not finalize; a set that has not ended cannot be", async () => {
    expect((await finalize(ended, student.token)).status).toBe(403);
    const open = (
      await t.api.post(
        `${domain()}/problem_sets`,
        { title: "Week 12", scoreboardRule: "icpc", dueAt: new Date(Date.now() + HOUR).toISOString() },
        { token: cast.admin.token },
      )
    ).body.data.id;
    const early = await finalize(open);
    expect(early.body.errorCode).toBe("Error");
    expect(early.body.errorMsg).toContain("after its end");
    expect(
      (await t.api.get(`${domain()}/problem_sets/${open}`, { token: cast.admin.token })).body.data.finalizedAt,
    ).toBe(null);
    expect(await auditCount("problem_set.finalize")).toBe(0);
  });

  test("finalized while frozen: ended, frozen and finalized set, thawed null; the public still frozen", async () => {
    const answer = await finalize(ended);
    expect(answer.body.errorCode).toBe("Success");
    expect(answer.body.data.finalizedAt).not.toBeNull();
    const admin = await state();
    expect(admin.ended).not.toBeNull();
    expect(admin.frozen).not.toBeNull();
    expect(admin.finalized).not.toBeNull();
    expect(admin.thawed).toBeNull();
    expect(check.stateRules(admin)).toEqual([]);
    expect(await state(student.token)).toEqual(admin);
    // Finalizing again changes nothing and logs nothing more.
    await finalize(ended);
    expect((await state()).finalized).toBe(admin.finalized);
    expect(await auditCount("problem_set.finalize")).toBe(1);
  });

  test("a rejudge after the finalize un-finalizes, audited with why; finalizing again is needed", async () => {
    const rejudged = await t.api.post(`${domain()}/records/${record}/rejudge`, {}, { token: cast.admin.token });
    expect(rejudged.body.errorCode).toBe("Success");
    expect((await state()).finalized).toBeNull();
    expect(await auditCount("problem_set.unfinalize")).toBe(1);
    const [event] = await t.orm.em
      .fork()
      .execute<{ why: string }[]>(
        "select changes->'rejudged'->>'after' as why from audit_events where action = 'problem_set.unfinalize' and target_id = ?",
        [ended],
      );
    expect(event.why).toContain(record);
    // Judged again, checked, finalized again.
    const { task_id } = await recordRow(t, record);
    const base = `${domain()}/records/${record}`;
    await t.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token });
    await t.api.put(`${base}/judge`, { state: "accepted", score: 100 }, { token: judger.token });
    expect((await finalize(ended)).body.errorCode).toBe("Success");
    expect((await state()).finalized).not.toBeNull();
  });

  test("the thaw after the reveal: thawed set, finalized keeps its earlier time", async () => {
    const before = await state();
    const thawed = await t.api.post(`${domain()}/problem_sets/${ended}/scoreboard/unfreeze`, undefined, {
      token: cast.admin.token,
    });
    expect(thawed.body.errorCode).toBe("Success");
    const after = await state();
    expect(after.thawed).not.toBeNull();
    expect(after.finalized).toBe(before.finalized);
    expect(check.stateRules(after)).toEqual([]);
  });
});
