import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Job, Worker } from "bullmq";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { spawnTwin } from "../helpers/twin-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submission, submit } from "../helpers/records";
import { startConfigsWorker } from "../helpers/workers";
import { reconcileRecords } from "../../src/modules/judging/tasks/reconcile.service";
import { houseKeepRuns } from "../../src/modules/runs/runs.jobs";
import { collectGarbage, storeBlob } from "../../src/modules/problem-configs/blobs.service";
import { configsSchedules } from "../../workers/configs";
import { upsertSchedules } from "../../workers/run-worker";

// The housekeeping of two configs workers (two API hosts, each with its own) on one database and one queue
// prefix: each schedule is one, each period's job runs once, and two passes at the same moment never act
// twice on a row. The passes are the real handlers, called on each host's own pool and job client.
let a: TestApp;
let b: TestApp;
let cast: Cast;
let judger: TestUser;
let problem: string;
const domain = () => `/domains/${cast.domain.id}`;
const n = (count: number) => Array.from({ length: count }, (_, i) => i);

beforeAll(async () => {
  a = await spawnApp({ RECONCILE_EVERY_SECONDS: "1", RUNS_PER_MINUTE: "0", RUNS_WAITING: "100" });
  b = await spawnTwin(a);
  cast = await makeCast(a);
  judger = await createUser(a, { role: "judger" });
  problem = await judgeableProblem(a, cast);
}, 30_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Records submitted, each with its current task id. */
async function submitted(count: number) {
  const ids: string[] = [];
  for (const _ of n(count))
    ids.push((await submit(a, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id);
  return ids;
}

/** The judge queue's jobs for these records, in any state. */
async function judgeJobsOf(ids: string[]) {
  const jobs = await a.jobs.queues.judge.getJobs(["waiting", "prioritized", "active", "delayed", "completed"]);
  return jobs.filter((job) => ids.includes(job.data.recordId));
}

describe("two reconcilers at the same moment", () => {
  test("records that lost their jobs are each enqueued again once, under one new task", async () => {
    const ids = await submitted(6);
    // Their jobs lost (a Redis flush): task ids no job has, saved long enough ago to be past the grace.
    await a.orm.em
      .fork()
      .execute(
        "update records set task_id = gen_random_uuid(), updated_at = now() - interval '1 minute' where id in (?)",
        [ids],
      );
    const lost = await Promise.all(ids.map(async (id) => (await recordRow(a, id)).task_id));
    const reports = await Promise.all(
      [a, b].map((host) => reconcileRecords(host.orm.em.fork(), host.jobs, host.logger, host.config.judging)),
    );
    expect(reports[0].reenqueued + reports[1].reenqueued).toBe(ids.length);
    const jobs = await judgeJobsOf(ids);
    for (const [i, id] of ids.entries()) {
      const { task_id } = await recordRow(a, id);
      expect(task_id).not.toBe(lost[i]);
      const fresh = jobs.filter((job) => job.data.recordId === id && job.data.taskId !== lost[i]);
      // The submission's own job, and exactly one new one: the record's current task.
      expect(fresh.filter((job) => job.id === task_id)).toHaveLength(1);
      expect(jobs.filter((job) => job.data.recordId === id)).toHaveLength(2);
    }
  });

  test("lapsed leases are each requeued once, under one new task with one job", async () => {
    const ids = await submitted(6);
    const claimed: string[] = [];
    for (const id of ids) {
      const { task_id } = await recordRow(a, id);
      const claim = await a.api.post(
        `${domain()}/records/${id}/judge/claim`,
        { taskId: task_id },
        { token: judger.token },
      );
      expect(claim.body.errorCode).toBe("Success");
      claimed.push(task_id!);
    }
    await a.orm.em
      .fork()
      .execute("update records set lease_expires_at = now() - interval '1 second' where id in (?)", [ids]);
    const reports = await Promise.all(
      [a, b].map((host) => reconcileRecords(host.orm.em.fork(), host.jobs, host.logger, host.config.judging)),
    );
    expect(reports[0].requeued + reports[1].requeued).toBe(ids.length);
    expect(reports[0].failed + reports[1].failed).toBe(0);
    const jobs = await judgeJobsOf(ids);
    for (const [i, id] of ids.entries()) {
      const row = await recordRow(a, id);
      expect(row).toMatchObject({ state: "queueing", attempts: 1 });
      expect(jobs.filter((job) => job.data.recordId === id && job.data.taskId !== claimed[i])).toEqual([
        expect.objectContaining({ id: row.task_id }),
      ]);
    }
  });

  test("runs' housekeeping: lapsed runs are each requeued once, under one new task with one job", async () => {
    const ids: string[] = [];
    for (const _ of n(4)) {
      const form = submission("c");
      form.set("input", "1 2");
      const run = await a.api.post(`${domain()}/problems/${problem}/runs`, undefined, {
        token: cast.member.token,
        multipart: form,
      });
      expect(run.body.errorCode).toBe("Success");
      ids.push(run.body.data.id);
    }
    const taskOf = async (id: string) =>
      (await a.orm.em.fork().execute<{ task_id: string }[]>("select task_id from runs where id = ?", [id]))[0].task_id;
    const claimed: string[] = [];
    for (const id of ids) {
      const taskId = await taskOf(id);
      const claim = await a.api.post(`${domain()}/runs/${id}/judge/claim`, { taskId }, { token: judger.token });
      expect(claim.body.errorCode).toBe("Success");
      claimed.push(taskId);
    }
    await a.orm.em
      .fork()
      .execute("update runs set lease_expires_at = now() - interval '1 second' where id in (?)", [ids]);
    const reports = await Promise.all(
      [a, b].map((host) => houseKeepRuns(host.orm.em.fork(), host.jobs, host.logger, host.config.judging)),
    );
    expect(reports[0].requeued + reports[1].requeued).toBe(ids.length);
    const jobs = await judgeJobsOf(ids);
    for (const [i, id] of ids.entries()) {
      const fresh = jobs.filter((job) => job.data.recordId === id && job.data.taskId !== claimed[i]);
      expect(fresh.map((job) => job.id)).toEqual([await taskOf(id)]);
    }
  });
});

describe("two blob collectors at the same moment", () => {
  test("each unreferenced blob is deleted once, by one of them", async () => {
    const orphans = await Promise.all(
      n(8).map((i) => storeBlob(a.orm.em.fork(), a.store, new TextEncoder().encode(`orphan ${i} ${Math.random()}`))),
    );
    const reports = await Promise.all([a, b].map((host) => collectGarbage(host.orm.em.fork(), host.store, 0)));
    // Nothing else of this file's is unreferenced: the eight, counted once between the two.
    expect(reports[0].blobs + reports[1].blobs).toBe(orphans.length);
    const [{ left }] = await a.orm.em
      .fork()
      .execute<{ left: number }[]>("select count(*)::int as left from blobs where digest in (?)", [
        orphans.map((o) => o.digest),
      ]);
    expect(left).toBe(0);
    for (const { digest } of orphans) expect(await a.store.has(digest)).toBe(false);
    const again = await Promise.all([a, b].map((host) => collectGarbage(host.orm.em.fork(), host.store, 0)));
    expect(again[0].blobs + again[1].blobs).toBe(0);
  });
});

describe("the housekeeper's schedules on two workers", () => {
  const scheduled = async (name: string): Promise<Job[]> =>
    (await a.jobs.queues.configs.getJobs(["completed", "failed", "active"])).filter((job) => job.name === name);

  test("both workers upserting at once keep one scheduler per id, and each period's job runs once", async () => {
    await Promise.all([a, b].map((host) => upsertSchedules("configs", configsSchedules, host.config)));
    await Promise.all([a, b].map((host) => upsertSchedules("configs", configsSchedules, host.config)));
    const queue = a.jobs.queues.configs;
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(configsSchedules.map((s) => s.id).sort());
    // Each scheduler has one next job waiting for its time.
    const next = await queue.getJobs(["delayed", "waiting"]);
    for (const { id } of configsSchedules)
      expect(next.filter((job) => job.id?.startsWith(`repeat:${id}:`))).toHaveLength(1);
    const workers: Worker[] = await Promise.all([startConfigsWorker(a), startConfigsWorker(b)]);
    try {
      // A few periods of one second, taken by whichever worker is free.
      for (const until = Date.now() + 40_000; Date.now() < until; await Bun.sleep(200))
        if ((await scheduled("record.reconcile")).length >= 4 && (await scheduled("run.housekeep")).length >= 4) break;
    } finally {
      await Promise.all(configsSchedules.map((s) => queue.removeJobScheduler(s.id)));
      await Promise.all(workers.map((worker) => worker.close()));
    }
    for (const [name, id] of [
      ["record.reconcile", "record-reconcile"],
      ["run.housekeep", "run-housekeep"],
    ]) {
      const ran = await scheduled(name);
      expect(ran.length).toBeGreaterThanOrEqual(4);
      // One job per period: its id is the scheduler's and the period's time, and it was taken once.
      const periods = ran.map((job) => Math.floor(Number(job.id!.split(":").at(-1)) / 1000));
      expect(new Set(periods).size).toBe(ran.length);
      for (const job of ran) {
        expect(job.id!.startsWith(`repeat:${id}:`)).toBe(true);
        expect(job.attemptsMade).toBeLessThanOrEqual(1);
      }
    }
  }, 60_000);
});
