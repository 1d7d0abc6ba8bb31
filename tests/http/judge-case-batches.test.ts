import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";

// PUT …/records/{record}/cases/judge: our judge's batch of case reports (an extension beside Horse's
// one-case route), merged in one statement, all or none, under the same fencing as a single report.
let t: TestApp;
let cast: Cast;
let judgerA: TestUser;
let judgerB: TestUser;
let problem: string;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  [judgerA, judgerB] = await Promise.all([createUser(t, { role: "judger" }), createUser(t, { role: "judger" })]);
  problem = await judgeableProblem(t, cast, { categories: ["pretest", "pretest", "private", "private"] });
});
afterAll(() => t.close());

const base = (id: string) => `/domains/${cast.domain.id}/records/${id}`;

async function claimed() {
  const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`)).body.data;
  const taskId = (await recordRow(t, record.id)).task_id!;
  const claim = await t.api.post(`${base(record.id)}/judge/claim`, { taskId }, { token: judgerA.token });
  expect(claim.body.errorCode).toBe("Success");
  return { id: record.id as string, taskId };
}

const putBatch = (id: string, body: object, judger = judgerA) =>
  t.api.put(`${base(id)}/cases/judge`, body, { token: judger.token });
const report = (index: number, state = "accepted") => ({
  index,
  state,
  score: state === "accepted" ? 25 : 0,
  timeMs: index + 1,
  memoryKb: 1000 + index,
  returnCode: 0,
  stdout: `case ${index}\n`,
  stderr: "",
});

describe("a batch of case reports", () => {
  test("lands whole, in any order, the same as one report a case: cases, totals and lease", async () => {
    const single = await claimed();
    const batched = await claimed();
    const cases = [report(0), report(1, "wrong_answer"), report(2), report(3)];
    for (const c of cases) {
      const { index, ...body } = c;
      expect(
        (await t.api.put(`${base(single.id)}/cases/${index}/judge`, body, { token: judgerA.token })).body.errorCode,
      ).toBe("Success");
    }
    const lease = async () =>
      (
        await t.orm.em
          .fork()
          .execute<{ at: string }[]>("select lease_expires_at::text as at from records where id = ?", [batched.id])
      )[0].at;
    const before = await lease();
    await Bun.sleep(10);
    const answer = await putBatch(batched.id, {
      taskId: batched.taskId,
      cases: [cases[3], cases[1], cases[0], cases[2]],
    });
    expect(answer.body.errorCode).toBe("Success");
    const [a, b] = [await recordRow(t, single.id), await recordRow(t, batched.id)];
    expect(b.cases).toEqual(a.cases);
    expect(b).toMatchObject({ score: 75, time_ms: 10, memory_kb: 1003 });
    expect(new Date(await lease()).getTime()).toBeGreaterThan(new Date(before).getTime());
  });

  test("later batches merge into earlier ones; an index given twice in one batch keeps the last", async () => {
    const { id, taskId } = await claimed();
    expect((await putBatch(id, { taskId, cases: [report(2)] })).body.errorCode).toBe("Success");
    const twice = [report(0, "wrong_answer"), report(0), { index: 1, state: "accepted", score: 25 }];
    expect((await putBatch(id, { taskId, cases: twice })).body.errorCode).toBe("Success");
    const row = await recordRow(t, id);
    expect((row.cases as { state: string }[]).map((c) => c.state)).toEqual(["accepted", "accepted", "accepted"]);
    expect(row.score).toBe(75);
  });

  test("40 batches sent at the same moment each land, the totals those of the last report of each case", async () => {
    const { id, taskId } = await claimed();
    const batches = Array.from({ length: 40 }, (_, i) => [report(i % 4), report((i + 1) % 4, "wrong_answer")]);
    const sent = await Promise.all(batches.map((cases) => putBatch(id, { taskId, cases })));
    expect(sent.map((s) => s.body.errorCode)).toEqual(batches.map(() => "Success"));
    const row = await recordRow(t, id);
    expect(row.cases).toHaveLength(4);
    const states = (row.cases as { state: string; score: number }[]).map((c) => c.state);
    expect(states.every((state) => state === "accepted" || state === "wrong_answer")).toBe(true);
    expect(row.score).toBe(25 * states.filter((state) => state === "accepted").length);
  });

  test("output in any script is stored exactly; a NUL byte anywhere in a batch is a 422 and stores nothing", async () => {
    const { id, taskId } = await claimed();
    const words = '张伟 Nguyễn Thị Phương José Ødegård «p» C:\\ "quoted" 🙂\n';
    expect(
      (await putBatch(id, { taskId, cases: [{ ...report(0), stdout: words, stderr: words }] })).body.errorCode,
    ).toBe("Success");
    expect((await recordRow(t, id)).cases).toMatchObject([{ stdout: words, stderr: words }]);
    const nul = await putBatch(id, { taskId, cases: [report(1), { ...report(2), stdout: "a\u0000b" }] });
    expect(nul.status).toBe(422);
    expect((await recordRow(t, id)).cases).toHaveLength(1);
  });

  test("concurrent batches and single reports each land: none overwrites another", async () => {
    const { id, taskId } = await claimed();
    const sent = await Promise.all([
      putBatch(id, { taskId, cases: [report(0), report(1)] }),
      putBatch(id, { taskId, cases: [report(2)] }),
      t.api.put(`${base(id)}/cases/3/judge`, { ...report(3), index: undefined, taskId }, { token: judgerA.token }),
      putBatch(id, { taskId, cases: [report(1), report(0)] }),
    ]);
    expect(sent.map((s) => s.body.errorCode)).toEqual(["Success", "Success", "Success", "Success"]);
    const row = await recordRow(t, id);
    expect(row.cases).toHaveLength(4);
    expect(row.score).toBe(100);
  });

  test("is refused whole, changing nothing, for a case the config lacks, a stranger, or a superseded task", async () => {
    const { id, taskId } = await claimed();
    expect((await putBatch(id, { taskId, cases: [report(0)] })).body.errorCode).toBe("Success");
    const beyond = await putBatch(id, { taskId, cases: [report(1), report(4)] });
    expect(beyond.body.errorMsg).toContain("the config has 4 case(s)");
    expect((await putBatch(id, { taskId, cases: [report(1)] }, judgerB)).body.errorMsg).toContain("not claimed by you");
    expect((await putBatch(id, { taskId: randomUUID(), cases: [report(1)] })).body.errorMsg).toContain("superseded");
    const row = await recordRow(t, id);
    expect(row.cases).toHaveLength(1);
    expect(row.score).toBe(25);
  });

  test("a malformed batch is a 422 naming the field, and changes nothing", async () => {
    const { id, taskId } = await claimed();
    const bad: [object, (string | number)[]][] = [
      [{ taskId, cases: [] }, ["body", "cases"]],
      [{ taskId, cases: [{ state: "accepted" }] }, ["body", "cases", 0, "index"]],
      [{ taskId, cases: [{ ...report(0), index: -1 }] }, ["body", "cases", 0, "index"]],
      [{ taskId, cases: [report(0), { ...report(1), state: "bogus" }] }, ["body", "cases", 1, "state"]],
      [{ taskId, cases: [{ ...report(0), score: "ten" }] }, ["body", "cases", 0, "score"]],
    ];
    for (const [body, loc] of bad) {
      const answer = await putBatch(id, body);
      expect(answer.status).toBe(422);
      expect(answer.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    expect((await recordRow(t, id)).cases).toEqual([]);
  });

  test("output holding a secret of the server is stored with the secret cut out", async () => {
    const { id, taskId } = await claimed();
    const leak = { ...report(1), stdout: `JWT_SECRET=${t.config.jwtSecret}\n` };
    expect((await putBatch(id, { taskId, cases: [report(0), leak] })).body.errorCode).toBe("Success");
    const row = await recordRow(t, id);
    expect(JSON.stringify(row)).not.toContain(t.config.jwtSecret);
    expect((row.cases as { stdout: string }[])[1].stdout).toBe("JWT_SECRET=[redacted]\n");
    expect(t.logs.find((line) => line.msg === "a secret of the server was cut out of a case's output")).toMatchObject({
      recordId: id,
      case: 1,
    });
  });
});
