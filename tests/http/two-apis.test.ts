import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { spawnTwin } from "../helpers/twin-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submission, submit } from "../helpers/records";
import { uploadPackage } from "../helpers/packages";

// Two API replicas on one database, one Redis and one queue prefix, each with its own configs worker, as
// behind a load balancer: what one starts, limits or judges, the other sees and never does twice.
let a: TestApp;
let b: TestApp;
let cast: Cast;
let judger: TestUser;
const domain = () => `/domains/${cast.domain.id}`;
const both = <T>(n: number, call: (api: TestApp, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 === 0 ? a : b, i)));

beforeAll(async () => {
  a = await spawnApp(
    {
      TRUSTED_PROXIES: "127.0.0.1/32",
      RATE_SUBMISSIONS_PER_USER: "1,4",
      RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: "1,5",
    },
    { configsWorker: true },
  );
  b = await spawnTwin(a, { configsWorker: true });
  cast = await makeCast(a);
  judger = await createUser(a, { role: "judger" });
}, 30_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** A new member of the domain (each test its own: submissions are rate-limited per user). */
async function student() {
  const user = await createUser(a);
  await addMembership(a, cast.domain, user, "user");
  return user;
}

/** The configs queue's jobs of one name, in every state BullMQ keeps them in. */
async function configsJobs(name: string) {
  const jobs = await a.jobs.queues.configs.getJobs(["waiting", "active", "delayed", "completed", "failed"]);
  return jobs.filter((job) => job.name === name);
}

describe("a similarity report requested through both APIs at once", () => {
  test("runs once: one report, one job, made by one of the two workers; each answer gives its state", async () => {
    const problem = await judgeableProblem(a, cast);
    for (const [i, who] of [await student(), await student()].entries()) {
      const code = { "main.c": `int main(){int x${i}=${i};return x${i};}\n` };
      expect(
        (await submit(a, who.token, `${domain()}/problems/${problem}`, submission("c", code))).body.errorCode,
      ).toBe("Success");
    }
    const path = `${domain()}/problems/${problem}/similarity`;
    // The queue held while the requests arrive: on a loaded machine the report could otherwise be done
    // before the last of them, which then rightly starts a new one.
    await a.jobs.queues.configs.pause();
    const answers = await both(10, (api) => api.api.post(path, {}, { token: cast.admin.token }));
    await a.jobs.queues.configs.resume();
    for (const answer of answers) expect(["queued", "running", "done"]).toContain(answer.body.data.state);
    let report = (await a.api.get(path, { token: cast.admin.token })).body.data;
    for (const until = Date.now() + 60_000; report.state !== "done" && Date.now() < until; await Bun.sleep(100))
      report = (await b.api.get(path, { token: cast.admin.token })).body.data;
    expect(report).toMatchObject({ state: "done", submissions: 2 });
    const [{ reports }] = await a.orm.em
      .fork()
      .execute<{ reports: number }[]>("select count(*)::int as reports from similarity_reports where problem_id = ?", [
        problem,
      ]);
    expect(reports).toBe(1);
    const jobs = await configsJobs("similarity.report");
    expect(jobs).toHaveLength(1);
    const done = [...a.logs, ...b.logs].filter((line) => line.msg === "similarity report done");
    expect(done).toHaveLength(1);
  }, 90_000);
});

/** An FPS file of one problem with one test, no solution (nothing to verify, so no judge is needed). */
const FPS = `<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.6"><item>
<title><![CDATA[Twice]]></title>
<time_limit unit="s"><![CDATA[1]]></time_limit>
<memory_limit unit="mb"><![CDATA[64]]></memory_limit>
<description><![CDATA[<p>Print twice the number.</p>]]></description>
<test_input><![CDATA[2
]]></test_input><test_output><![CDATA[4
]]></test_output>
</item></fps>
`;

describe("a package uploaded through both APIs at once", () => {
  // No idempotency key: two uploads are two imports, as two clicks on "import" are (docs/problem-packages.md).
  test("two uploads of one file are two problems, each read by exactly one job of the two workers", async () => {
    const started = Date.now();
    const answers = await both(2, (api) => uploadPackage(api, cast, { bytes: FPS, name: "twice.xml" }));
    for (const answer of answers) expect(answer.body).toMatchObject({ errorCode: "Success", data: { count: 1 } });
    const ids = answers.map((answer) => answer.body.data.results[0].id as string);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids)
      expect((await b.api.get(`${domain()}/problems/${id}`, { token: cast.admin.token })).body.data).toMatchObject({
        id,
        title: "Twice",
      });
    const reads = (await configsJobs("package.read")).filter((job) => job.timestamp >= started);
    expect(reads).toHaveLength(2);
    for (const job of reads)
      expect({ state: await job.getState(), attempts: job.attemptsMade }).toEqual({
        state: "completed",
        attempts: 1,
      });
  }, 60_000);

  test("two uploads naming the same url: one problem; the other answer refuses it and leaves nothing", async () => {
    const count = async () =>
      (
        await a.orm.em
          .fork()
          .execute<{ n: number }[]>("select count(*)::int as n from problems where domain_id = ?", [cast.domain.id])
      )[0].n;
    const before = await count();
    const answers = await both(2, (api) =>
      uploadPackage(api, cast, { bytes: FPS, name: "twice.xml" }, cast.admin.token, { url: "twice-once" }),
    );
    const codes = answers.map((answer) => answer.body.errorCode).sort();
    expect(codes[1]).toBe("Success");
    expect(codes[0]).not.toBe("Success");
    expect(codes[0]).not.toBe("InternalServerError");
    expect(await count()).toBe(before + 1);
  }, 60_000);
});

/** Claims the record as the judger through `api` and reports its cases accepted (10 each), not its end. */
async function judgeCases(api: TestApp, id: string) {
  const base = `${domain()}/records/${id}`;
  const { task_id } = await recordRow(api, id);
  expect((await api.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token })).body.errorCode).toBe(
    "Success",
  );
  for (const i of [0, 1])
    await api.api.put(`${base}/cases/${i}/judge`, { state: "accepted", score: 10, timeMs: 1 }, { token: judger.token });
}
/** A user's total on a board. */
const scoreOf = (board: { rows: { userId: string; totalScore: number }[] }, who: TestUser) =>
  board.rows.find((row) => row.userId === who.user.id)?.totalScore;
const finish = (api: TestApp, id: string) =>
  api.api.put(`${domain()}/records/${id}/judge`, { state: "accepted" }, { token: judger.token });

describe("a set's scoreboard read through either API", () => {
  let set: string;
  let problem: string;
  const board = async (api: TestApp) => {
    const answer = await api.api.get(`${domain()}/problem_sets/${set}/scoreboard`, { token: cast.admin.token });
    expect(answer.body.errorCode).toBe("Success");
    return answer.body.data;
  };
  const sent = async (who: TestUser) => {
    const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
    return (await submit(a, who.token, path)).body.data.id as string;
  };
  beforeAll(async () => {
    problem = await judgeableProblem(a, cast);
    set = (await a.api.post(`${domain()}/problem_sets`, { title: "Board" }, { token: cast.admin.token })).body.data.id;
    await a.api.post(`${domain()}/problem_sets/${set}/problems`, { problem }, { token: cast.admin.token });
  });

  test("is the same after a submission judged through the other, read before and after", async () => {
    const who = await student();
    const id = await sent(who);
    const before = await board(b);
    await judgeCases(a, id);
    expect((await finish(a, id)).body.errorCode).toBe("Success");
    const [throughB, throughA] = [await board(b), await board(a)];
    expect(throughB).toEqual(throughA);
    expect(throughB).not.toEqual(before);
    expect(scoreOf(throughB, who)).toBe(20);
  });

  test("shows a problem renamed through the other API", async () => {
    await board(b);
    const renamed = await a.api.patch(
      `${domain()}/problems/${problem}`,
      { title: "Renamed", url: "renamed" },
      { token: cast.admin.token },
    );
    expect(renamed.body.errorCode).toBe("Success");
    const [throughB, throughA] = [await board(b), await board(a)];
    expect(throughB).toEqual(throughA);
    expect(throughB.problems).toEqual([{ id: problem, url: "renamed", title: "Renamed" }]);
  });

  test("sees a judgement whose commit came after a later one's (its updated_at older than the board's stamp)", async () => {
    const [late, early] = [await student(), await student()];
    const [lateId, earlyId] = [await sent(late), await sent(early)];
    await judgeCases(a, lateId);
    await judgeCases(a, earlyId);
    // Another transaction holds the record's row (as a rejudge or a batch of case reports may), so the
    // judger's final report through A waits: its updated_at is the time it started, not when it commits.
    const sql = new SQL(a.config.databaseUrl!, { max: 1 });
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const { promise: locked, resolve: lock } = Promise.withResolvers<void>();
    const holding = sql.begin(async (tx) => {
      await tx`select id from records where id = ${lateId} for update`;
      lock();
      await released;
    });
    try {
      await locked;
      const waiting = finish(a, lateId);
      for (let blocked = 0; blocked === 0; await Bun.sleep(20))
        [{ blocked }] = await a.orm.em
          .fork()
          .execute<{ blocked: number }[]>(
            "select count(*)::int as blocked from pg_stat_activity where wait_event_type = 'Lock' " +
              "and datname = current_database() and query like '%for update%'",
          );
      // Meanwhile the other record ends, and B reads (and keeps) the board with it.
      expect((await finish(a, earlyId)).body.errorCode).toBe("Success");
      await board(b);
      release();
      await holding;
      expect((await waiting).body.errorCode).toBe("Success");
    } finally {
      release();
      await sql.close();
    }
    const [throughB, throughA] = [await board(b), await board(a)];
    expect(throughB).toEqual(throughA);
    expect([scoreOf(throughB, late), scoreOf(throughB, early)]).toEqual([20, 20]);
  });
});

describe("limits counted across both APIs", () => {
  test("a user's submissions spread over both meet the one limit (a burst of 4), sent at once", async () => {
    const problem = await judgeableProblem(a, cast);
    const who = await student();
    const answers = await both(10, (api) => submit(api, who.token, `${domain()}/problems/${problem}`));
    expect(answers.filter((answer) => answer.status === 200 && answer.body.errorCode === "Success")).toHaveLength(4);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(6);
  });

  test("wrong passwords for one account from one address, spread over both, meet the one limit of 5", async () => {
    const { user } = await createUser(a);
    const answers = await both(16, (api) =>
      api.api.post(
        "/auth/login?responseType=json&cookie=false",
        { username: user.username, password: "guess" },
        { form: true, headers: { "x-forwarded-for": "203.0.113.20" } },
      ),
    );
    expect(answers.filter((answer) => answer.status !== 429)).toHaveLength(5);
    for (const answer of answers.filter((answer) => answer.status !== 429))
      expect(answer.body.errorCode).toBe("UsernamePasswordError");
  });
});

describe("one waiting task and 50 judge loops polling both APIs at once", () => {
  test("one loop is handed the task; of the same judger's claims of it, one succeeds", async () => {
    const problem = await judgeableProblem(a, cast);
    const who = await student();
    const code = { "main.c": "int main(void){return 0;}\n" };
    const submitted = await submit(a, who.token, `${domain()}/problems/${problem}`, submission("c", code));
    expect(submitted.body.errorCode).toBe("Success");
    const id = submitted.body.data.id;
    const answers = await both(50, (api) =>
      api.api.post("/judge/next_task", { waitSeconds: 1 }, { token: judger.token }),
    );
    const handed = answers.map((answer) => answer.body.data).filter((task) => task?.recordId === id);
    expect(handed).toHaveLength(1);
    const claims = await both(10, (api) =>
      api.api.post(`${domain()}/records/${id}/judge/claim`, { taskId: handed[0].taskId }, { token: judger.token }),
    );
    expect(claims.filter((claim) => claim.body.errorCode === "Success")).toHaveLength(1);
    expect((await recordRow(a, id)).attempts).toBe(1);
  }, 30_000);
});
