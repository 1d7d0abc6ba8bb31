import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { judgerKey } from "../helpers/judging";

/**
 * The record page and the problem page read their resource in the statement of the caller's standing
 * (auth.plugin's domainRead): the same answers as when each was read after the standing, whoever asks,
 * whichever way the path names the domain and however the caller signs in.
 */
let t: TestApp;
let cast: Cast;
let hidden: Cast;
let judger: TestUser;
let problem: string;
beforeAll(async () => {
  t = await spawnApp();
  [cast, hidden] = await Promise.all([makeCast(t), makeCast(t, { hidden: true })]);
  judger = await createUser(t, { role: "judger" });
  problem = await judgeableProblem(t, cast);
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;

/** An OI set holding the problem, open until `lockAt`. */
async function oiSet(lockAt: string): Promise<string> {
  const body = { title: `OI ${lockAt}`, scoreboardRule: "oi", lockAt };
  const set = (await t.api.post(`${domain()}/problem_sets`, body, { token: cast.admin.token })).body.data.id;
  await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem }, { token: cast.admin.token });
  return set;
}

/** A member's record through the set, judged accepted. */
async function judgedInSet(set: string): Promise<string> {
  const id = (await submit(t, cast.member.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`)).body
    .data.id;
  const { task_id } = await recordRow(t, id);
  const base = `${domain()}/records/${id}`;
  await t.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token });
  await t.api.put(`${base}/judge`, { state: "accepted" }, { token: judger.token });
  return id;
}

describe("the record page", () => {
  test("another domain's record is not found there; a hidden domain is not found for an outsider", async () => {
    const elsewhere = await judgeableProblem(t, hidden);
    const theirs = (await submit(t, hidden.member.token, `/domains/${hidden.domain.id}/problems/${elsewhere}`)).body
      .data.id;
    await addMembership(t, cast.domain, hidden.member, "user");
    const here = await t.api.get(`${domain()}/records/${theirs}`, { token: hidden.member.token });
    expect(here.body.errorCode).toBe("RecordNotFoundError");
    const outsider = await t.api.get(`/domains/${hidden.domain.id}/records/${theirs}`, { token: cast.member.token });
    expect(outsider.body.errorCode).toBe("DomainNotFoundError");
    const missing = await t.api.get(`${domain()}/records/${crypto.randomUUID()}`, { token: cast.admin.token });
    expect(missing.body.errorCode).toBe("RecordNotFoundError");
    expect((await t.api.get(`${domain()}/records/${theirs}`)).status).toBe(401);
  });

  test("the same record through the domain's url, to a judger's access key, and to a bearer", async () => {
    const id = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id;
    const byId = await t.api.get(`${domain()}/records/${id}`, { token: cast.admin.token });
    expect(byId.body.data).toMatchObject({ id, problemId: problem, committerId: cast.member.user.id });
    const byUrl = await t.api.get(`/domains/${cast.domain.url}/records/${id}`, { token: cast.admin.token });
    expect(byUrl.body).toEqual(byId.body);
    const key = await judgerKey(t, cast);
    const basic = Buffer.from(`${key.accessKeyId}:${key.secretAccessKey}`).toString("base64");
    const viaKey = await t.api.get(`${domain()}/records/${id}`, { headers: { authorization: `Basic ${basic}` } });
    // A site judger holds nothing in the domain: it sees the domain, not others' records.
    expect(viaKey.body).toEqual({ detail: "record view Permission Denied." });
    const wrongSecret = Buffer.from(`${key.accessKeyId}:nope`).toString("base64");
    const refused = await t.api.get(`${domain()}/records/${id}`, {
      headers: { authorization: `Basic ${wrongSecret}` },
    });
    expect(refused.status).toBe(401);
  });

  test("an OI set's record is sealed to its author at once, never to staff, and open once the set ends", async () => {
    const set = await oiSet("2099-01-01T00:00:00Z");
    const id = await judgedInSet(set);
    const own = (await t.api.get(`${domain()}/records/${id}`, { token: cast.member.token })).body.data;
    expect(own).toMatchObject({ state: "judging", score: 0, timeMs: 0, judgedAt: null, cases: [], history: [] });
    const staff = (await t.api.get(`${domain()}/records/${id}`, { token: cast.admin.token })).body.data;
    expect(staff).toMatchObject({ state: "accepted", judgedAt: expect.any(String) });
    // The set is read with the record: its new end applies at the next read, not after a cache's two seconds.
    await t.api.patch(
      `${domain()}/problem_sets/${set}`,
      { lockAt: "2000-01-01T00:00:00Z" },
      { token: cast.admin.token },
    );
    const after = (await t.api.get(`${domain()}/records/${id}`, { token: cast.member.token })).body.data;
    expect(after).toMatchObject({ state: "accepted", judgedAt: staff.judgedAt });
  });
});

describe("the records list", () => {
  test("an OI set's record is sealed in its author's list, its other rows as PostgreSQL wrote them", async () => {
    const set = await oiSet("2098-06-01T00:00:00Z");
    const id = await judgedInSet(set);
    const open = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id as string;
    const list = async (token: string) => (await t.api.get(`${domain()}/records?limit=50`, { token })).body.data;
    const own = await list(cast.member.token);
    const row = (page: { results: { id: string }[] }, record: string) => page.results.find((r) => r.id === record);
    expect(row(own, id)).toMatchObject({ state: "judging", score: 0, timeMs: 0, memoryKb: 0, judgedAt: null });
    expect(row(own, id)).toMatchObject({ problemSetId: set, committerUsername: cast.member.user.username });
    const staff = await list(cast.admin.token);
    expect(row(staff, id)).toMatchObject({ state: "accepted", judgedAt: expect.any(String) });
    // The rest of the sealed page is as the unsealed one wrote it.
    expect(row(own, open)).toEqual(row(staff, open));
    expect(row(own, open)).toMatchObject({ problemSetId: null, committerId: cast.member.user.id });
    expect(own.count).toBeGreaterThanOrEqual(1);
  });
});

describe("the problem page", () => {
  test("problem.view is checked before the problem; a hidden problem is not found without viewHidden", async () => {
    const secret = await judgeableProblem(t, cast);
    await t.api.patch(`${domain()}/problems/${secret}`, { hidden: true }, { token: cast.admin.token });
    const member = await t.api.get(`${domain()}/problems/${secret}`, { token: cast.member.token });
    expect(member.body.errorCode).toBe("ProblemNotFoundError");
    expect((await t.api.get(`${domain()}/problems/${secret}`, { token: cast.admin.token })).body.data.id).toBe(secret);
    const missing = await t.api.get(`${domain()}/problems/no-such-problem`, { token: cast.member.token });
    expect(missing.body.errorCode).toBe("ProblemNotFoundError");
    const outsider = await t.api.get(`/domains/${hidden.domain.id}/problems/${secret}`, { token: cast.member.token });
    expect(outsider.body.errorCode).toBe("DomainNotFoundError");
  });

  test("by url or id, through the domain's url, with the caller's own latest record", async () => {
    const shown = (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.member.token })).body.data;
    const byUrl = await t.api.get(`/domains/${cast.domain.url}/problems/${shown.url}`, { token: cast.member.token });
    expect(byUrl.body.data).toEqual(shown);
    const id = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id;
    const mine = (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.member.token })).body.data;
    expect(mine.latestRecord).toMatchObject({ id });
    const theirs = (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.admin.token })).body.data;
    expect(theirs.latestRecord).toBeNull();
  });
});
