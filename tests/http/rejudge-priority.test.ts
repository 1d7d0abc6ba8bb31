import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { acceptEverything, judgeableProblem, recordRow, scriptedJudger, submit } from "../helpers/records";
import { reconcileRecords } from "../../src/modules/judging/tasks/reconcile.service";
import { JUDGE_PRIORITY } from "../../src/modules/judging/tasks/judge-queue";

// A bulk rejudge queues behind new submissions: for judges on the queue, for judges long-polling the
// API, and after the reconciler re-enqueues its lost tasks.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const submitted = async (problem: string) =>
  (await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id as string;
const numAccept = async (problem: string) =>
  (await t.api.get(`${domain()}/problems/${problem}`, { token: cast.owner.token })).body.data.numAccept;

async function countIn(ids: string[], state: string) {
  const [{ n }] = await t.orm.em
    .fork()
    .execute<{ n: number }[]>("select count(*)::int as n from records where id = any(?::uuid[]) and state = ?", [
      `{${ids.join(",")}}`,
      state,
    ]);
  return n;
}

/** Waits (bounded) until every record is accepted. */
async function allAccepted(ids: string[]) {
  for (let i = 0; i < 2400 && (await countIn(ids, "accepted")) < ids.length; i++) await Bun.sleep(50);
  expect(await countIn(ids, "accepted")).toBe(ids.length);
}

describe("a bulk rejudge of 200 records", () => {
  test("is judged after the submissions made before and while it runs, by queue judges and long-polling judges", async () => {
    const problem = await judgeableProblem(t, cast);
    const old: string[] = [];
    for (let i = 0; i < 200; i += 20)
      old.push(...(await Promise.all(Array.from({ length: 20 }, () => submitted(problem)))));
    const first = await scriptedJudger(t, acceptEverything(t, judger.token));
    await allAccepted(old);
    await first.close();
    expect(await numAccept(problem)).toBe(200);

    // Judging paused: the rejudge is queued, then a student submits.
    expect(
      (await t.api.post(`${domain()}/problems/${problem}/rejudge`, {}, { token: cast.admin.token })).body.data,
    ).toEqual({ queued: 200, skipped: 0 });
    expect(await numAccept(problem)).toBe(0);
    const fresh = await submitted(problem);
    expect(await t.jobs.queues.judge.getJobCounts("wait", "prioritized")).toEqual({ wait: 1, prioritized: 200 });
    // A judger polling the API is offered the submission first.
    const offered = await t.api.post("/judge/next_task", { waitSeconds: 0 }, { token: judger.token });
    expect(offered.body.data).toMatchObject({ recordId: fresh, taskId: (await recordRow(t, fresh)).task_id });

    // A queue judge, one record at a time, takes the submission first; a submission made while the
    // rejudge runs (during its fifth record) is taken next.
    const order: string[] = [];
    let during = "";
    const accept = acceptEverything(t, judger.token);
    const second = await scriptedJudger(
      t,
      async (job) => {
        order.push(job.recordId);
        if (order.length === 5) during = await submitted(problem);
        return accept(job);
      },
      1,
    );
    try {
      await allAccepted([...old, fresh]);
      await allAccepted([during]);
    } finally {
      await second.close();
    }
    expect(order[0]).toBe(fresh);
    expect(order[5]).toBe(during);
    expect(order.filter((id) => id !== fresh && id !== during).sort()).toEqual([...old].sort());
    expect(order).toHaveLength(202);
    expect(await numAccept(problem)).toBe(202);
    const [{ kept }] = await t.orm.em
      .fork()
      .execute<{ kept: number }[]>(
        "select count(*)::int as kept from records where id = any(?::uuid[]) and history -> 0 ->> 'state' = 'accepted'",
        [`{${old.join(",")}}`],
      );
    expect(kept).toBe(200);
  }, 180_000);
});

describe("the reconciler", () => {
  test("re-enqueues a lost rejudge task at the rejudge's low priority, and a lost submission at the normal one", async () => {
    const problem = await judgeableProblem(t, cast);
    const judged = [await submitted(problem), await submitted(problem), await submitted(problem)];
    const worker = await scriptedJudger(t, acceptEverything(t, judger.token));
    await allAccepted(judged);
    await worker.close();
    expect(
      (await t.api.post(`${domain()}/problems/${problem}/rejudge`, { state: "accepted" }, { token: cast.admin.token }))
        .body.data.queued,
    ).toBe(3);
    const waiting = await submitted(problem);
    // Redis loses the judge queue (the Redis is shared with other test files: only this app's keys).
    const raw = new Redis(t.config.redisUrl);
    await raw.del(...(await raw.keys(`${t.config.queuePrefix}:judge:*`)));
    await raw.quit();
    await t.orm.em
      .fork()
      .execute("update records set updated_at = now() - interval '1 minute' where problem_id = ?", [problem]);
    expect(await reconcileRecords(t.orm.em.fork(), t.jobs, t.logger, t.config.judging)).toEqual({
      requeued: 0,
      failed: 0,
      reenqueued: 4,
    });
    const jobOf = async (id: string) => (await t.jobs.queues.judge.getJob((await recordRow(t, id)).task_id!))!;
    for (const id of judged) {
      const job = await jobOf(id);
      expect([await job.getState(), job.opts.priority]).toEqual(["prioritized", JUDGE_PRIORITY.bulkRejudge]);
    }
    expect(await (await jobOf(waiting)).getState()).toBe("waiting");

    // A rejudged record whose judger went silent goes back at the same low priority.
    const { task_id: taskId } = await recordRow(t, judged[0]);
    const claim = await t.api.post(`${domain()}/records/${judged[0]}/judge/claim`, { taskId }, { token: judger.token });
    expect(claim.body.errorCode).toBe("Success");
    await t.orm.em
      .fork()
      .execute("update records set lease_expires_at = now() - interval '1 second' where id = ?", [judged[0]]);
    expect((await reconcileRecords(t.orm.em.fork(), t.jobs, t.logger, t.config.judging)).requeued).toBe(1);
    const requeued = await jobOf(judged[0]);
    expect(requeued.id).not.toBe(taskId);
    expect([await requeued.getState(), requeued.opts.priority]).toEqual(["prioritized", JUDGE_PRIORITY.bulkRejudge]);
  }, 60_000);
});
