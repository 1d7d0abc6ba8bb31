import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Worker } from "bullmq";
import Redis from "ioredis";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { startConfigsWorker } from "../helpers/workers";
import { acceptEverything, judgeableProblem, recordRow, scriptedJudger, submit } from "../helpers/records";

// Short leases so that expiry happens within a test; two attempts before a record fails.
let t: TestApp;
let cast: Cast;
let judgerA: TestUser;
let judgerB: TestUser;
let housekeeper: Worker;
beforeAll(async () => {
  t = await spawnApp({ JUDGE_LEASE_SECONDS: "1", JUDGE_MAX_ATTEMPTS: "2" });
  cast = await makeCast(t);
  [judgerA, judgerB] = await Promise.all([createUser(t, { role: "judger" }), createUser(t, { role: "judger" })]);
  housekeeper = await startConfigsWorker(t);
});
afterAll(async () => {
  await housekeeper.close();
  await t.close();
});

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;
/** One run of the real reconciler job, through the configs queue and worker. */
const reconcile = () => t.jobs.run("record.reconcile", {}, { queue: "configs", timeoutMs: 20_000 });

async function submitted(problem: string) {
  const record = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data;
  return { id: record.id as string, taskId: (await recordRow(t, record.id)).task_id! };
}

async function until(id: string, state: string) {
  for (let i = 0; i < 400 && (await recordRow(t, id)).state !== state; i++) await Bun.sleep(25);
  return recordRow(t, id);
}

describe("leases", () => {
  test("a lapsed lease re-queues the record under a new task id; the old judger is refused; another judger finishes it once", async () => {
    const problem = await judgeableProblem(t, cast);
    const { id, taskId } = await submitted(problem);
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judgerA.token })).body.errorCode).toBe(
      "Success",
    );
    // A case report extends the lease; silence lets it lapse.
    expect(
      (await t.api.put(`${base(id)}/cases/0/judge`, { state: "accepted", score: 10 }, { token: judgerA.token })).body
        .errorCode,
    ).toBe("Success");
    await Bun.sleep(1100);
    const late = await t.api.put(
      `${base(id)}/cases/1/judge`,
      { state: "accepted", score: 10 },
      { token: judgerA.token },
    );
    expect(late.body.errorMsg).toContain("lease on this record has expired");
    expect(await reconcile()).toMatchObject({ requeued: 1, failed: 0 });
    const requeued = await recordRow(t, id);
    expect(requeued).toMatchObject({ state: "queueing", judger_id: null, cases: [], score: 0 });
    expect(requeued.task_id).not.toBe(taskId);
    // The old judger's reports and its old task are refused from now on.
    expect((await t.api.put(`${base(id)}/judge`, { state: "accepted" }, { token: judgerA.token })).body.errorCode).toBe(
      "Error",
    );
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judgerA.token })).body.errorCode).toBe(
      "Error",
    );
    // Another judger takes the new job from the queue and judges it, once.
    const judged: string[] = [];
    const worker = await scriptedJudger(t, async (job) => {
      const outcome = await acceptEverything(t, judgerB.token)(job);
      if ("judged" in outcome) judged.push(job.taskId);
      return outcome;
    });
    try {
      expect(await until(id, "accepted")).toMatchObject({ judger_id: judgerB.user.id, attempts: 2, score: 20 });
      // The stale job of the first task also reaches the judger, whose claim of it is refused.
      expect(judged).toEqual([requeued.task_id!]);
    } finally {
      await worker.close();
    }
  });

  test("after the last attempt lapses the record ends failed with a system-error case saying why", async () => {
    const problem = await judgeableProblem(t, cast);
    const { id } = await submitted(problem);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const { task_id } = await recordRow(t, id);
      expect(
        (await t.api.post(`${base(id)}/judge/claim`, { taskId: task_id }, { token: judgerA.token })).body.errorCode,
      ).toBe("Success");
      await Bun.sleep(1100);
      await reconcile();
    }
    const failed = await recordRow(t, id);
    expect(failed).toMatchObject({ state: "failed", attempts: 2, judger_id: null });
    expect(failed.cases).toEqual([
      expect.objectContaining({ state: "system_error", stderr: expect.stringContaining("abandoned 2 time(s)") }),
    ]);
    const view = (await t.api.get(base(id), { token: cast.member.token })).body.data;
    expect(view.state).toBe("failed");
    expect(view.judgedAt).not.toBeNull();
    expect(
      (await t.api.put(`${base(id)}/cases/0/judge`, { state: "accepted" }, { token: judgerA.token })).body.errorCode,
    ).toBe("Error");
  });
});

describe("the reconciler", () => {
  test("after Redis loses every queued job, each record is enqueued again and completes", async () => {
    const problem = await judgeableProblem(t, cast);
    const records = await Promise.all(Array.from({ length: 5 }, () => submitted(problem)));
    // Flush the judge queue's keys (the whole Redis is shared with other test files' prefixes).
    const raw = new Redis(t.config.redisUrl);
    const keys = await raw.keys(`${t.config.queuePrefix}:judge:*`);
    expect(keys.length).toBeGreaterThan(0);
    await raw.del(...keys);
    await raw.quit();
    for (const r of records) expect(await t.jobs.queues.judge.getJob(r.taskId)).toBeUndefined();
    // Young records are left alone for a moment (the API may be enqueueing them right now).
    expect((await reconcile()).reenqueued).toBe(0);
    await t.orm.em
      .fork()
      .execute("update records set updated_at = now() - interval '1 minute' where id = any(?::uuid[])", [
        `{${records.map((r) => r.id).join(",")}}`,
      ]);
    const worker = await scriptedJudger(t, acceptEverything(t, judgerB.token));
    try {
      expect((await reconcile()).reenqueued).toBe(5);
      for (const r of records) expect((await until(r.id, "accepted")).attempts).toBe(1);
      // Nothing left to do: a second run changes nothing.
      expect(await reconcile()).toEqual({ requeued: 0, failed: 0, reenqueued: 0 });
    } finally {
      await worker.close();
    }
  });

  test("a lost record is found behind a backlog of 1,200 waiting records with live jobs", async () => {
    const problem = await judgeableProblem(t, cast);
    const model = await submitted(problem);
    const em = t.orm.em.fork();
    const columns = (
      await em.execute<{ column_name: string }[]>(
        "select column_name from information_schema.columns where table_name = 'records'",
      )
    ).map((c) => c.column_name);
    const copied = columns.map((c) =>
      c === "id" || c === "task_id"
        ? "gen_random_uuid()"
        : c === "updated_at"
          ? "now() - interval '1 hour' + make_interval(secs => n)"
          : `"${c}"`,
    );
    const backlog = await em.execute<{ id: string; task_id: string; domain_id: string }[]>(
      `insert into records (${columns.map((c) => `"${c}"`).join(", ")}) select ${copied.join(", ")} from records, generate_series(1, 1200) as n where id = ? returning id, task_id, domain_id`,
      [model.id],
    );
    // Their jobs are alive (waiting in the queue: no judge runs), and they are older than the lost one.
    await t.jobs.queues.judge.addBulk(
      backlog.map((r) => ({
        name: "record.judge",
        data: { recordId: r.id, domainId: r.domain_id, taskId: r.task_id },
        opts: { jobId: r.task_id },
      })),
    );
    const lost = await submitted(problem);
    await (await t.jobs.queues.judge.getJob(lost.taskId))!.remove();
    await em.execute("update records set updated_at = now() - interval '1 minute' where id in (?, ?)", [
      lost.id,
      model.id,
    ]);
    const report = await reconcile();
    expect(report.reenqueued).toBe(1);
    expect((await recordRow(t, lost.id)).task_id).not.toBe(lost.taskId);
    expect(await t.jobs.isLive("judge", (await recordRow(t, lost.id)).task_id!)).toBe(true);
    await t.jobs.queues.judge.drain();
    const ours = [...backlog.map((r) => r.id), model.id, lost.id];
    await em.execute("delete from records where id = any(?::uuid[])", [`{${ours.join(",")}}`]);
  }, 60_000);

  test("a record whose job is still live is not enqueued twice", async () => {
    const problem = await judgeableProblem(t, cast);
    const { id, taskId } = await submitted(problem);
    await t.orm.em.fork().execute("update records set updated_at = now() - interval '1 minute' where id = ?", [id]);
    expect((await reconcile()).reenqueued).toBe(0);
    expect((await recordRow(t, id)).task_id).toBe(taskId);
  });
});
