import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submission, submit } from "../helpers/records";
import { readArchive } from "../../src/modules/problem-configs/archive-reader";

let t: TestApp;
let cast: Cast;
let other: Cast;
let judger: TestUser;
let problem: string;
beforeAll(async () => {
  t = await spawnApp();
  [cast, other] = await Promise.all([makeCast(t), makeCast(t)]);
  judger = await createUser(t, { role: "judger" });
  problem = await judgeableProblem(t, cast, { categories: ["pretest", "private", "sample"] });
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;
const ids = (response: { body: { data: { results: { id: string }[] } } }) =>
  response.body.data.results.map((r) => r.id);

/** Judges a record through the protocol: three cases with output, then rejected. */
async function judge(id: string) {
  const { task_id } = await recordRow(t, id);
  await t.api.post(`${base(id)}/judge/claim`, { taskId: task_id }, { token: judger.token });
  for (const i of [0, 1, 2]) {
    await t.api.put(
      `${base(id)}/cases/${i}/judge`,
      { state: i === 1 ? "wrong_answer" : "accepted", score: i === 1 ? 0 : 10, stdout: `out${i}`, stderr: `err${i}` },
      { token: judger.token },
    );
  }
  await t.api.put(`${base(id)}/judge`, { state: "rejected" }, { token: judger.token });
}

describe("reading records", () => {
  test("the list: one's own without record.view, everything with it; filters; never another domain's", async () => {
    const mine = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id;
    const theirs = (await submit(t, cast.admin.token, `${domain()}/problems/${problem}`)).body.data.id;
    const elsewhere = await judgeableProblem(t, other);
    await submit(t, other.member.token, `/domains/${other.domain.id}/problems/${elsewhere}`);
    const own = await t.api.get(`${domain()}/records`, { token: cast.member.token });
    expect(ids(own)).toContain(mine);
    expect(ids(own)).not.toContain(theirs);
    const all = await t.api.get(`${domain()}/records`, { token: cast.admin.token });
    expect(ids(all)).toEqual(expect.arrayContaining([mine, theirs]));
    expect(all.body.data.count).toBe(all.body.data.results.length);
    expect(all.body.data.results.find((r: { id: string }) => r.id === mine)).toMatchObject({
      problemId: problem,
      problemSetId: null,
      committerId: cast.member.user.id,
      committerUsername: cast.member.user.username,
      state: "queueing",
    });
    expect(
      ids(await t.api.get(`${domain()}/records?submitterId=${cast.member.user.id}`, { token: cast.admin.token })),
    ).toEqual([mine]);
    expect(
      ids(await t.api.get(`${domain()}/records?submitterId=${cast.admin.user.id}`, { token: cast.member.token })),
    ).toEqual([]);
    expect(
      ids(await t.api.get(`${domain()}/records?ordering=created_at&limit=1`, { token: cast.admin.token })),
    ).toEqual([mine]);
    expect((await t.api.get(`${domain()}/records?ordering=score`, { token: cast.admin.token })).body.errorCode).toBe(
      "IllegalFieldError",
    );
    expect((await t.api.get(`${domain()}/records?problem=nope`, { token: cast.admin.token })).status).toBe(422);
    // The cast's domains are hidden: they do not exist for non-members.
    expect((await t.api.get(`${domain()}/records`, { token: other.member.token })).body.errorCode).toBe(
      "DomainNotFoundError",
    );
  });

  test("one record: one's own, or anyone's with record.view, and only through its own domain", async () => {
    const mine = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id;
    const theirs = (await submit(t, cast.admin.token, `${domain()}/problems/${problem}`)).body.data.id;
    expect((await t.api.get(base(mine), { token: cast.member.token })).body.data).toMatchObject({
      id: mine,
      problemId: problem,
      cases: [],
      attempts: 0,
    });
    expect((await t.api.get(base(theirs), { token: cast.member.token })).body).toEqual({
      detail: "record view Permission Denied.",
    });
    expect((await t.api.get(base(mine), { token: cast.admin.token })).body.errorCode).toBe("Success");
    // other.owner is root of the other domain: still not a way into this domain's records.
    await addMembership(t, other.domain, cast.member, "user");
    expect(
      (await t.api.get(`/domains/${other.domain.id}/records/${mine}`, { token: other.owner.token })).body.errorCode,
    ).toBe("RecordNotFoundError");
    expect(
      (await t.api.get(`/domains/${other.domain.id}/records/${mine}`, { token: cast.member.token })).body.errorCode,
    ).toBe("RecordNotFoundError");
    expect((await t.api.get(base("123"), { token: cast.member.token })).status).toBe(422);
  });

  test("case output: public categories for everyone who may read the record, the rest with record.detail", async () => {
    const id = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id;
    await judge(id);
    const own = (await t.api.get(base(id), { token: cast.member.token })).body.data;
    expect(own.cases.map((c: { stdout: string; stderr: string }) => [c.stdout, c.stderr])).toEqual([
      ["out0", "err0"],
      ["", ""],
      ["out2", "err2"],
    ]);
    expect(own.cases[1]).toMatchObject({ state: "wrong_answer", score: 0 });
    expect(own).toMatchObject({ state: "rejected", score: 20, judgerId: judger.user.id });
    const detailed = (await t.api.get(base(id), { token: cast.admin.token })).body.data;
    expect(detailed.cases[1].stdout).toBe("out1");
  });

  test("code: its author, record.code holders and the judger while judging; nobody else", async () => {
    const id = (
      await submit(
        t,
        cast.member.token,
        `${domain()}/problems/${problem}`,
        submission("c", { "main.c": "int main(){}", "lib/util.h": "#pragma once" }),
      )
    ).body.data.id;
    const code = `${base(id)}/code`;
    const zip = await t.api.get(code, { token: cast.member.token, binary: true });
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const entries = await readArchive(zip.body);
    expect(entries.map((e) => [e.path, new TextDecoder().decode(e.data)])).toEqual([
      ["lib/util.h", "#pragma once"],
      ["main.c", "int main(){}"],
    ]);
    expect(
      (await t.api.get(`${code}?archiveFormat=tar`, { token: cast.admin.token, binary: true })).headers.get(
        "content-type",
      ),
    ).toBe("application/gzip");
    const peer = await createUser(t);
    await addMembership(t, cast.domain, peer, "user");
    expect((await t.api.get(code, { token: peer.token })).body).toEqual({ detail: "record code Permission Denied." });
    expect((await t.api.get(base(id), { token: cast.member.token })).body.data.codeUrl).toEndWith(
      `/records/${id}/code`,
    );
    expect((await t.api.get(code, { token: judger.token })).body).toEqual({ detail: "record code Permission Denied." });
    const { task_id } = await recordRow(t, id);
    await t.api.post(`${base(id)}/judge/claim`, { taskId: task_id }, { token: judger.token });
    expect((await t.api.get(code, { token: judger.token, binary: true })).status).toBe(200);
    await t.api.put(`${base(id)}/judge`, { state: "accepted" }, { token: judger.token });
    expect((await t.api.get(code, { token: judger.token })).body).toEqual({ detail: "record code Permission Denied." });
  });
});

describe("scoreboard", () => {
  async function finish(token: string, set: string, p: string, score: number) {
    const id = (await submit(t, token, `${domain()}/problem_sets/${set}/problems/${p}/submit`)).body.data.id;
    const { task_id } = await recordRow(t, id);
    await t.api.post(`${base(id)}/judge/claim`, { taskId: task_id }, { token: judger.token });
    await t.api.put(
      `${base(id)}/judge`,
      { state: score === 30 ? "accepted" : "rejected", score },
      { token: judger.token },
    );
    return id;
  }

  test("best or last score per user and problem, totals, ranks; hidden from non-managers when the set says so", async () => {
    const p2 = await judgeableProblem(t, cast);
    const set = (await t.api.post(`${domain()}/problem_sets`, { title: "Contest" }, { token: cast.admin.token })).body
      .data.id;
    for (const p of [problem, p2])
      await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem: p }, { token: cast.admin.token });
    // A classmate with the same total, no problem accepted; the admin's test is on no board (staff).
    const rival = await createUser(t);
    await addMembership(t, cast.domain, rival, "user");
    await finish(cast.member.token, set, problem, 30);
    await finish(cast.member.token, set, problem, 10);
    await finish(rival.token, set, problem, 10);
    await finish(rival.token, set, p2, 20);
    await finish(cast.admin.token, set, p2, 30);
    // Not judged yet: a pending attempt, no score.
    await submit(t, cast.member.token, `${domain()}/problem_sets/${set}/problems/${p2}/submit`);
    const path = `${domain()}/problem_sets/${set}/scoreboard`;
    const best = (await t.api.get(path, { token: cast.member.token })).body.data;
    expect(best.rule).toBe("best");
    expect(best.problems.map((p: { id: string }) => p.id)).toEqual([problem, p2]);
    // Equal totals: more problems accepted ranks first. Then the other students, who scored nothing.
    expect(
      best.rows
        .slice(0, 2)
        .map((r: { username: string; totalScore: number; rank: number; accepted: number }) => [
          r.username,
          r.totalScore,
          r.rank,
          r.accepted,
        ]),
    ).toEqual([
      [cast.member.user.username, 30, 1, 1],
      [rival.user.username, 30, 2, 0],
    ]);
    expect(best.rows.slice(2).map((r: { totalScore: number }) => r.totalScore)).toEqual(
      best.rows.slice(2).map(() => 0),
    );
    expect(best.rows.map((r: { userId: string }) => r.userId)).not.toContain(cast.admin.user.id);
    const member = best.rows.find((r: { userId: string }) => r.userId === cast.member.user.id);
    expect(member.cells).toHaveLength(2);
    expect(member.cells[0]).toMatchObject({ problemId: problem, score: 30, submissions: 2, state: "accepted" });
    expect(member.cells[1]).toMatchObject({ problemId: p2, score: 0, attempts: 1, pending: 1, state: "pending" });
    await t.api.patch(`${domain()}/problem_sets/${set}`, { scoreboardRule: "last" }, { token: cast.admin.token });
    const last = (await t.api.get(path, { token: cast.member.token })).body.data;
    expect(last.rows.find((r: { userId: string }) => r.userId === cast.member.user.id)).toMatchObject({
      totalScore: 10,
      accepted: 0,
      rank: 2,
    });
    await t.api.patch(`${domain()}/problem_sets/${set}`, { scoreboardHidden: true }, { token: cast.admin.token });
    expect((await t.api.get(path, { token: cast.member.token })).body.errorCode).toBe(
      "ScoreboardHiddenBadRequestError",
    );
    expect((await t.api.get(path, { token: cast.admin.token })).body.errorCode).toBe("Success");
    expect((await t.api.get(path, { token: cast.guest.token })).body).toEqual({
      detail: "problem_set view Permission Denied.",
    });
  });
});
