import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Worker } from "bullmq";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { acceptEverything, judgeableProblem, recordRow, scriptedJudger, submit } from "../helpers/records";

let t: TestApp;
let cast: Cast;
let judgerA: TestUser;
let judgerB: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  [judgerA, judgerB] = await Promise.all([createUser(t, { role: "judger" }), createUser(t, { role: "judger" })]);
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;

/** A submitted record and its current task id (read where a judger would get it: the queue job). */
async function queued(problem?: string): Promise<{ id: string; taskId: string }> {
  const p = problem ?? (await judgeableProblem(t, cast, { categories: ["pretest", "pretest", "private"] }));
  const record = (await submit(t, cast.member.token, `${domain()}/problems/${p}`)).body.data;
  const taskId = (await recordRow(t, record.id)).task_id!;
  expect((await t.jobs.queues.judge.getJob(taskId))?.data.recordId).toBe(record.id);
  return { id: record.id, taskId };
}

async function claimed(judger = judgerA) {
  const record = await queued();
  const claim = await t.api.post(`${base(record.id)}/judge/claim`, { taskId: record.taskId }, { token: judger.token });
  expect(claim.body.errorCode).toBe("Success");
  return { ...record, claim: claim.body.data };
}

const putCase = (id: string, index: number, body: object, judger = judgerA) =>
  t.api.put(`${base(id)}/cases/${index}/judge`, body, { token: judger.token });
const putRecord = (id: string, body: object, judger = judgerA) =>
  t.api.put(`${base(id)}/judge`, body, { token: judger.token });

describe("claim", () => {
  test("sets fetched, the judger and a lease, and answers Horse's four strings plus working download links", async () => {
    const { id, taskId, claim } = await claimed();
    for (const key of ["problemConfigRepoName", "problemConfigCommitId", "recordRepoName", "recordCommitId"])
      expect(claim[key].length).toBeGreaterThan(0);
    expect(claim.problemConfigCommitId).toMatch(/^[0-9a-f]{64}$/);
    expect(claim.recordCommitId).toMatch(/^[0-9a-f]{64}$/);
    expect(claim).toMatchObject({ taskId, language: "c" });
    const row = await recordRow(t, id);
    expect(row).toMatchObject({ state: "fetched", judger_id: judgerA.user.id, attempts: 1 });
    const code = await t.api.get(claim.codeFiles[0].url, { token: judgerA.token, binary: true });
    expect(new TextDecoder().decode(code.body)).toBe("int main(){return 0;}");
    expect(
      (await t.api.get(claim.configArchiveUrl, { token: judgerA.token, binary: true })).headers.get("content-type"),
    ).toBe("application/zip");
    expect((await t.api.get(claim.codeArchiveUrl, { token: judgerA.token, binary: true })).status).toBe(200);
    // Another judger may not fetch them, nor a digest that is not the record's.
    expect((await t.api.get(claim.codeFiles[0].url, { token: judgerB.token })).body.errorCode).toBe("Error");
    expect(
      (await t.api.get(`${base(id)}/judge/files/${"0".repeat(64)}`, { token: judgerA.token })).body.errorCode,
    ).toBe("FileDownloadError");
  });

  test("two judgers racing for one task: exactly one wins, the other gets a clear error", async () => {
    for (let round = 0; round < 5; round++) {
      const { id, taskId } = await queued();
      const answers = await Promise.all(
        [judgerA, judgerB].map((j) => t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: j.token })),
      );
      const codes = answers.map((a) => a.body.errorCode).sort();
      expect(codes).toEqual(["Error", "Success"]);
      expect(answers.find((a) => a.body.errorCode === "Error")!.body.errorMsg).toContain("already claimed");
      expect((await recordRow(t, id)).attempts).toBe(1);
    }
  });

  test("a wrong or malformed task id is refused; a claim is one attempt's: repeated, even by its winner, refused", async () => {
    const { id, taskId } = await queued();
    for (const wrong of [randomUUID(), "not-a-uuid"]) {
      const answer = await t.api.post(`${base(id)}/judge/claim`, { taskId: wrong }, { token: judgerA.token });
      expect(answer.body.errorCode).toBe("Error");
      expect(answer.body.errorMsg).toContain("not the record's current task");
    }
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judgerA.token })).body.errorCode).toBe(
      "Success",
    );
    // Two loops of one judger handed one task would both judge it (issue 53): the second claim is refused.
    const again = await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judgerA.token });
    expect(again.body).toMatchObject({ errorCode: "Error" });
    expect(again.body.errorMsg).toContain("already claimed");
    expect((await recordRow(t, id)).attempts).toBe(1);
    // The holder keeps its lease with a report that names no state.
    const lease = async () =>
      (
        await t.orm.em
          .fork()
          .execute<{ at: string }[]>("select lease_expires_at::text as at from records where id = ?", [id])
      )[0].at;
    const before = await lease();
    await Bun.sleep(20);
    const renewed = await t.api.put(`${base(id)}/judge`, { taskId }, { token: judgerA.token });
    expect(renewed.body.errorCode).toBe("Success");
    expect(await lease()).not.toBe(before);
    expect((await recordRow(t, id)).state).toBe("fetched");
    expect((await t.api.post(`${base(id)}/judge/claim`, {}, { token: judgerA.token })).status).toBe(422);
  });
});

describe("reports", () => {
  test("out of order and repeated, the totals are the same: score and time add up, memory is the peak", async () => {
    const inOrder = await claimed();
    const shuffled = await claimed();
    const reports = [
      { state: "accepted", score: 10, timeMs: 3, memoryKb: 700, stdout: "a" },
      { state: "wrong_answer", score: 0, timeMs: 5, memoryKb: 900, stdout: "b" },
      { state: "accepted", score: 10, timeMs: 7, memoryKb: 800, stdout: "c" },
    ];
    for (const [i, r] of reports.entries()) expect((await putCase(inOrder.id, i, r)).body.errorCode).toBe("Success");
    expect((await putRecord(inOrder.id, { state: "rejected" })).body.errorCode).toBe("Success");
    // The final report first, then the cases backwards, each twice (Horse's Tiger fires them concurrently).
    await putRecord(shuffled.id, { state: "rejected", score: 0, timeMs: 999_999, memoryKb: 999_999 });
    for (const i of [2, 1, 0, 2, 1, 0])
      expect((await putCase(shuffled.id, i, reports[i])).body.errorCode).toBe("Success");
    await putRecord(shuffled.id, { state: "rejected" });
    for (const id of [inOrder.id, shuffled.id]) {
      expect(await recordRow(t, id)).toMatchObject({ state: "rejected", score: 20, time_ms: 15, memory_kb: 900 });
    }
    const a = (await t.api.get(base(inOrder.id), { token: cast.admin.token })).body.data;
    const b = (await t.api.get(base(shuffled.id), { token: cast.admin.token })).body.data;
    expect(b.cases).toEqual(a.cases);
    expect(a.judgedAt).toEndWith("+00:00");
    expect(a.judgerId).toBe(judgerA.user.id);
  });

  test("case reports arriving all at once each land: none overwrites another's case or totals", async () => {
    const { id } = await claimed();
    const report = (i: number) => ({
      state: "accepted",
      score: 10,
      timeMs: i + 1,
      memoryKb: 100 * (i + 1),
      stdout: `out ${i}`,
    });
    const indexes = Array.from({ length: 8 }, () => [2, 0, 1]).flat();
    const answers = await Promise.all(indexes.map((i) => putCase(id, i, report(i))));
    expect(answers.map((a) => a.body.errorCode)).toEqual(indexes.map(() => "Success"));
    const row = await recordRow(t, id);
    expect(row).toMatchObject({ score: 30, time_ms: 6, memory_kb: 300 });
    expect(row.cases).toEqual([0, 1, 2].map((i) => ({ ...report(i), returnCode: 0, stderr: "" })));
  });

  test("a naive judgedAt (Python's datetime.now().isoformat(), as JOJ's tiger sends) is UTC and the record ends", async () => {
    const { id } = await claimed();
    const response = await putRecord(id, { state: "accepted", judgedAt: "2026-11-23T18:42:13.430123" });
    expect(response.body.errorCode).toBe("Success");
    expect(await recordRow(t, id)).toMatchObject({ state: "accepted" });
    expect((await t.api.get(base(id), { token: cast.admin.token })).body.data.judgedAt).toBe(
      "2026-11-23T18:42:13.430+00:00",
    );
  });

  test("a judgedAt that is no date is a 422 naming it, and the record stays as it was", async () => {
    const { id } = await claimed();
    const response = await putRecord(id, { state: "accepted", judgedAt: "2026-02-30T10:00:00" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "judgedAt"]);
    expect((await recordRow(t, id)).state).not.toBe("accepted");
  });

  test("states only move forward, a final state is final, and a repeated report is harmless", async () => {
    const { id } = await claimed();
    expect((await putRecord(id, { state: "running" })).body.errorCode).toBe("Success");
    expect((await putRecord(id, { state: "running" })).body.errorCode).toBe("Success");
    const back = await putRecord(id, { state: "compiling" });
    expect(back.body.errorCode).toBe("Error");
    expect(back.body.errorMsg).toContain("cannot go from running to compiling");
    expect((await putRecord(id, { state: "queueing" })).body.errorCode).toBe("Error");
    expect((await putRecord(id, { state: "accepted" })).body.errorCode).toBe("Success");
    expect((await putRecord(id, { state: "accepted" })).body.errorCode).toBe("Success");
    expect((await putRecord(id, { state: "rejected" })).body.errorCode).toBe("Error");
    expect((await recordRow(t, id)).state).toBe("accepted");
  });

  test("only the lease holder reports, for the current task, for a case the config has", async () => {
    const { id, taskId } = await queued();
    expect((await putCase(id, 0, { state: "accepted" })).body.errorMsg).toContain("not claimed by you");
    await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judgerA.token });
    expect((await putCase(id, 0, { state: "accepted" }, judgerB)).body.errorMsg).toContain("not claimed by you");
    expect((await putRecord(id, { state: "accepted" }, judgerB)).body.errorCode).toBe("Error");
    expect((await putCase(id, 0, { state: "accepted", taskId: randomUUID() })).body.errorMsg).toContain("superseded");
    expect((await putCase(id, 3, { state: "accepted" })).body.errorMsg).toContain("the config has 3 case(s)");
    expect((await putCase(id, 0, { state: "accepted", taskId })).body.errorCode).toBe("Success");
    expect((await putCase(id, 0, { state: "bogus" })).status).toBe(422);
    expect((await putCase(id, 0, { score: "ten" })).status).toBe(422);
    expect((await recordRow(t, id)).cases).toHaveLength(1);
  });

  test("an accepted record counts once in numAccept of its problem and set", async () => {
    const problem = await judgeableProblem(t, cast);
    const set = (await t.api.post(`${domain()}/problem_sets`, { title: "S" }, { token: cast.admin.token })).body.data
      .id;
    await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem }, { token: cast.admin.token });
    const record = (await submit(t, cast.member.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`))
      .body.data;
    const { task_id } = await recordRow(t, record.id);
    await t.api.post(`${base(record.id)}/judge/claim`, { taskId: task_id }, { token: judgerA.token });
    await Promise.all([1, 2, 3].map(() => putRecord(record.id, { state: "accepted" })));
    const [counts] = await t.orm.em
      .fork()
      .execute<{ p: number; s: number }[]>(
        "select (select num_accept from problems where id = ?) as p, (select num_accept from problem_sets where id = ?) as s",
        [problem, set],
      );
    expect(counts).toEqual({ p: 1, s: 1 });
  });
});

describe("domain scoping and permissions of the judge routes", () => {
  test("a record is judged only through its own domain; judging needs record.judge", async () => {
    const { id, taskId } = await queued();
    const other = await makeCast(t);
    // The other domain's admin holds record.judge there, not here.
    const viaOther = await t.api.post(
      `/domains/${other.domain.id}/records/${id}/judge/claim`,
      { taskId },
      { token: other.admin.token },
    );
    expect(viaOther.body.errorCode).toBe("RecordNotFoundError");
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: other.admin.token })).body.errorCode).toBe(
      "DomainNotFoundError",
    );
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: cast.member.token })).body).toEqual({
      detail: "record judge Permission Denied.",
    });
    // A site judger reaches it (the domain is hidden, but judgers judge everywhere); so does the domain's admin role.
    expect(
      (await t.api.post(`/domains/${other.domain.id}/records/${id}/judge/claim`, { taskId }, { token: judgerA.token }))
        .body.errorCode,
    ).toBe("RecordNotFoundError");
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: cast.admin.token })).body.errorCode).toBe(
      "Success",
    );
    expect(
      (
        await t.api.put(
          `/domains/${other.domain.id}/records/${id}/judge`,
          { state: "accepted" },
          { token: cast.admin.token },
        )
      ).body.errorCode,
    ).toBe("DomainNotFoundError");
    expect(
      (await t.api.put(`${base(id)}/judge`, { state: "accepted" }, { token: cast.admin.token })).body.errorCode,
    ).toBe("Success");
    expect((await t.api.post(`${base("not-a-uuid")}/judge/claim`, { taskId }, { token: judgerA.token })).status).toBe(
      422,
    );
  });
});

describe("a scripted judger on the real queue", () => {
  let worker: Worker | undefined;
  afterAll(() => worker?.close());

  test("every submission is judged once, end to end", async () => {
    worker = await scriptedJudger(t, acceptEverything(t, judgerB.token));
    const problem = await judgeableProblem(t, cast);
    const records = await Promise.all(
      Array.from({ length: 6 }, () => submit(t, cast.member.token, `${domain()}/problems/${problem}`)),
    );
    for (const r of records) {
      const id = r.body.data.id;
      for (let i = 0; i < 200 && (await recordRow(t, id)).state !== "accepted"; i++) await Bun.sleep(25);
      expect(await recordRow(t, id)).toMatchObject({
        state: "accepted",
        judger_id: judgerB.user.id,
        attempts: 1,
        score: 20,
        time_ms: 10,
        memory_kb: 1001,
      });
    }
    const view = (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.member.token })).body.data;
    expect(view.numAccept).toBe(6);
    expect(view.latestRecord.state).toBe("accepted");
  });
});

describe("case output holding a secret of the server", () => {
  test("is stored with the secret cut out, and a warning names the record (any judger's report, ours or not)", async () => {
    const { id, taskId } = await claimed();
    const leak = `JWT_SECRET=${t.config.jwtSecret}\nDATABASE_URL=${t.config.databaseUrl}\n`;
    expect(
      (
        await putCase(id, 0, {
          taskId,
          state: "accepted",
          score: 10,
          stdout: leak,
          stderr: `again ${t.config.jwtSecret}`,
        })
      ).body.errorCode,
    ).toBe("Success");
    const [stored] = (await recordRow(t, id)).cases as { stdout: string; stderr: string }[];
    expect(stored).toMatchObject({
      stdout: "JWT_SECRET=[redacted]\nDATABASE_URL=[redacted]\n",
      stderr: "again [redacted]",
    });
    expect(JSON.stringify(await recordRow(t, id))).not.toContain(t.config.jwtSecret);
    expect(t.logs.find((line) => line.msg === "a secret of the server was cut out of a case's output")).toMatchObject({
      recordId: id,
      case: 0,
      hits: 3,
    });
  });
});
