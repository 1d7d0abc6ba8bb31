import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { chmod } from "node:fs/promises";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { recordRow, submission, submit } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData } from "../helpers/judging";
import { startTcpProxy } from "../helpers/tcp-proxy";

// The judge as a process (`bun workers/judge.ts`), the way it is deployed: HTTP mode, a SIGKILL in the
// middle of a record (another judge finishes it once the lease lapses) and a clean SIGTERM (given back).
const ROOT = join(import.meta.dir, "../..");
let t: TestApp;
let cast: Cast;
let server: string;
let slow: string;
const children: Bun.Subprocess[] = [];

// Four cases of ~0.6 s each: long enough to stop a judge in the middle of a record.
const CONFIG = {
  languages: [
    {
      name: "python3",
      compileFiles: ["main.py"],
      compileArgs: [],
      caseDefault: {
        time: "2s",
        memory: "64m",
        score: 25,
        executeFiles: ["main.py"],
        executeArgs: ["python3", "main.py"],
        executeInputFile: "in",
        executeOutputFile: "out",
      },
      cases: [{}, {}, {}, {}],
    },
  ],
};
const SLOW = "import time\ntime.sleep(0.6)\na, b = map(int, input().split())\nprint(a + b)\n";

beforeAll(async () => {
  t = await spawnApp({ JUDGE_LEASE_SECONDS: "3" }, { configsWorker: true });
  cast = await makeCast(t);
  server = listen(t);
  slow = await problemWithData(t, cast, CONFIG, { in: "20 22\n", out: "42\n" });
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await t.app.stop(true);
  await t.close();
});

/** A judge process; resolves once it logged that it is ready. */
async function judgeProcess(env: Record<string, string>, args: string[] = []) {
  await chmod(join(env.JUDGE_WORK_DIR, ".."), 0o711);
  const child = Bun.spawn([process.execPath, "workers/judge.ts", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 20_000;
  while (!output.includes('"msg":"judge ready"') && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
  }
  expect(output).toContain('"msg":"judge ready"');
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return output;
      output += new TextDecoder().decode(value);
    }
  })();
  return { child, output: () => rest };
}

async function submitSlow(app = { t, cast, slow }) {
  const record = (
    await submit(
      app.t,
      app.cast.member.token,
      `/domains/${app.cast.domain.id}/problems/${app.slow}`,
      submission("python3", { "main.py": SLOW }),
    )
  ).body.data;
  return record.id as string;
}

/** Waits until the record has `count` case reports (it is in the middle of being judged). */
async function casesReported(id: string, count: number, app = t) {
  for (let i = 0; i < 400; i++) {
    const row = await recordRow(app, id);
    if ((row.cases as { state: string }[]).filter((c) => c.state === "accepted").length >= count) return row;
    await Bun.sleep(25);
  }
  throw new Error(`record ${id} never reached ${count} case(s)`);
}

/** The reconciler (the configs worker's periodic job), run until the record is final. */
async function reconciledUntilFinal(id: string) {
  for (let i = 0; i < 60; i++) {
    const row = await recordRow(t, id);
    if (["accepted", "rejected", "failed"].includes(row.state)) return row;
    await t.jobs.run("record.reconcile", {}, { queue: "configs", timeoutMs: 20_000 });
    await Bun.sleep(250);
  }
  return recordRow(t, id);
}

describe("the judge process", () => {
  test("HTTP mode needs only the API: it long-polls, claims, judges and stops cleanly on SIGTERM", async () => {
    const key = await judgerKey(t, cast);
    // No Redis for this judge: a judger on another machine reaches only the API.
    const judge = await judgeProcess(
      judgeEnv(t, server, key, 62_000, { REDIS_URL: "redis://127.0.0.1:1", JUDGE_CONCURRENCY: "2" }),
      ["--server", server],
    );
    const id = await submitSlow();
    const row = await finalRecord(t, id, 30_000);
    expect(row).toMatchObject({ state: "accepted", score: 100, judger_id: key.id });
    judge.child.kill("SIGTERM");
    expect(await judge.child.exited).toBe(0);
    expect(await judge.output()).toContain('"msg":"stopped"');
  }, 60_000);

  test("killed with SIGKILL mid-record: another judge finishes the record once the lease lapses", async () => {
    const [keyA, keyB] = [await judgerKey(t, cast), await judgerKey(t, cast)];
    const a = await judgeProcess(judgeEnv(t, server, keyA, 62_100));
    const id = await submitSlow();
    await casesReported(id, 1);
    a.child.kill("SIGKILL");
    await a.child.exited;
    const stranded = await recordRow(t, id);
    expect(["fetched", "compiling", "running"]).toContain(stranded.state);
    expect(stranded.judger_id).toBe(keyA.id);

    const b = await judgeProcess(judgeEnv(t, server, keyB, 62_200));
    const row = await reconciledUntilFinal(id);
    expect(row).toMatchObject({ state: "accepted", score: 100, judger_id: keyB.id, attempts: 2 });
    expect((row.cases as { state: string }[]).map((c) => c.state)).toEqual([
      "accepted",
      "accepted",
      "accepted",
      "accepted",
    ]);
    b.child.kill("SIGTERM");
    expect(await b.child.exited).toBe(0);
  }, 90_000);

  test("its API goes away mid-record and comes back within the retry window: judged once, right", async () => {
    // An API whose lease outlasts the outage and the retries' back-off, as production's does (a 60 s lease
    // renewed every 20 s against a 30 s retry window): the file's 3 s lease, renewed each second, lapsed
    // during a 2.5 s cut whenever the last renewal was over half a second old, and the report after the
    // restore was refused (the record then waited for the reconciler, judged by no one: CI, three times).
    const own = await spawnApp({ JUDGE_LEASE_SECONDS: "15" }, { configsWorker: true });
    const ownCast = await makeCast(own);
    const ownServer = listen(own);
    const app = {
      t: own,
      cast: ownCast,
      slow: await problemWithData(own, ownCast, CONFIG, { in: "20 22\n", out: "42\n" }),
    };
    const key = await judgerKey(own, ownCast);
    const proxy = await startTcpProxy(Number(new URL(ownServer).port));
    const url = `http://127.0.0.1:${proxy.port}`;
    const judge = await judgeProcess(judgeEnv(own, url, key, 62_400, { JUDGE_API_RETRY_SECONDS: "20" }), [
      "--server",
      url,
    ]);
    try {
      const id = await submitSlow(app);
      await casesReported(id, 1, own);
      // An API restarting: every connection reset, new ones refused, for longer than the old 1.5 s of retries.
      proxy.cut();
      await Bun.sleep(2_500);
      proxy.restore();
      // When the record is not final, the judge's log says what it was doing.
      const row = await finalRecord(own, id, 30_000);
      if (!["accepted", "rejected", "failed"].includes(row.state)) {
        judge.child.kill("SIGTERM");
        expect({ state: row.state, log: (await judge.output()).slice(-4000) }).toMatchObject({ state: "accepted" });
      }
      expect(row).toMatchObject({ state: "accepted", score: 100, judger_id: key.id, attempts: 1 });
    } finally {
      judge.child.kill("SIGTERM");
      await judge.child.exited;
      proxy.close();
      await own.app.stop(true);
      await own.close();
    }
  }, 120_000);

  test("its API gone past the retry window mid-record: the record is given up, never failed, and judged again", async () => {
    const key = await judgerKey(t, cast);
    const proxy = await startTcpProxy(Number(new URL(server).port));
    const url = `http://127.0.0.1:${proxy.port}`;
    const judge = await judgeProcess(judgeEnv(t, url, key, 62_500, { JUDGE_API_RETRY_SECONDS: "1" }), [
      "--server",
      url,
    ]);
    try {
      const id = await submitSlow();
      await casesReported(id, 1);
      proxy.cut();
      await Bun.sleep(3_500);
      proxy.restore();
      // Given back at once when the API answers again, or re-queued once its 3 s lease lapsed.
      const row = await reconciledUntilFinal(id);
      expect(row).toMatchObject({ state: "accepted", score: 100 });
      expect((row.cases as { state: string }[]).map((c) => c.state)).toEqual(Array(4).fill("accepted"));
      judge.child.kill("SIGTERM");
      await judge.child.exited;
      const log = await judge.output();
      expect(log).toContain("the API did not answer; the record is given back to the queue");
      expect(log).not.toContain("judging failed");
    } finally {
      judge.child.kill("SIGKILL");
      proxy.close();
    }
  }, 90_000);

  test("two API addresses, the first gone for good mid-record: the judge goes on through the second, judged once", async () => {
    const key = await judgerKey(t, cast);
    const [first, second] = [
      await startTcpProxy(Number(new URL(server).port)),
      await startTcpProxy(Number(new URL(server).port)),
    ];
    const [a, b] = [`http://127.0.0.1:${first.port}`, `http://127.0.0.1:${second.port}`];
    // A retry window of 1 s: with one address the record would be given up and never judged by this judge.
    const judge = await judgeProcess(judgeEnv(t, a, key, 62_600, { JUDGE_API_RETRY_SECONDS: "1" }), [
      "--server",
      a,
      "--server",
      b,
    ]);
    try {
      const id = await submitSlow();
      await casesReported(id, 1);
      first.cut();
      const row = await finalRecord(t, id, 30_000);
      expect(row).toMatchObject({ state: "accepted", score: 100, judger_id: key.id, attempts: 1 });
      judge.child.kill("SIGTERM");
      expect(await judge.child.exited).toBe(0);
      const log = await judge.output();
      expect(log).not.toContain("given back to the queue");
      expect(log).not.toContain("judging failed");
    } finally {
      judge.child.kill("SIGKILL");
      first.close();
      second.close();
    }
  }, 60_000);

  test("SIGTERM mid-record with no grace: the record is given back at once, not after the lease, and judged by the next judge", async () => {
    const key = await judgerKey(t, cast);
    const a = await judgeProcess(judgeEnv(t, server, key, 62_300, { JUDGE_STOP_GRACE_SECONDS: "0" }));
    const id = await submitSlow();
    await casesReported(id, 1);
    a.child.kill("SIGTERM");
    // A failed shutdown step exits 1: the judge's own error lines say which and why.
    const code = await a.child.exited;
    const failures =
      code === 0 ? [] : (await a.output()).split("\n").filter((line: string) => line.includes('"level":"error"'));
    expect({ code, failures }).toEqual({ code: 0, failures: [] });
    expect(await a.output()).toContain('"msg":"stopped"');
    const given = await recordRow(t, id);
    expect(given).toMatchObject({ state: "queueing", judger_id: null, attempts: 0, cases: [] });
    const b = await judgeProcess(judgeEnv(t, server, key, 62_400));
    expect(await finalRecord(t, id, 30_000)).toMatchObject({ state: "accepted", attempts: 1 });
    b.child.kill("SIGTERM");
    expect(await b.child.exited).toBe(0);
  }, 90_000);

  test("SIGTERM with grace: the running record is finished before the judge exits", async () => {
    const key = await judgerKey(t, cast);
    const a = await judgeProcess(judgeEnv(t, server, key, 62_500, { JUDGE_STOP_GRACE_SECONDS: "30" }));
    const id = await submitSlow();
    await casesReported(id, 1);
    a.child.kill("SIGTERM");
    expect(await a.child.exited).toBe(0);
    expect(await recordRow(t, id)).toMatchObject({ state: "accepted", score: 100, judger_id: key.id });
  }, 60_000);
});

describe("judge start-up errors name what to fix", () => {
  test("no judger access key", async () => {
    const child = Bun.spawn([process.execPath, "workers/judge.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(code).toBe(1);
    expect(out + err).toContain("JUDGER_ACCESS_KEY_ID and JUDGER_SECRET_ACCESS_KEY are required");
  });

  test("a key the API refuses", async () => {
    const env = judgeEnv(t, server, { accessKeyId: "jk_00000000000000000000", secretAccessKey: "wrong" }, 62_600);
    await chmod(join(env.JUDGE_WORK_DIR, ".."), 0o711);
    const child = Bun.spawn([process.execPath, "workers/judge.ts", "--server", server], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(code).toBe(1);
    expect(out + err).toContain(`cannot use the API at ${server} with this judger key`);
    expect(out + err).not.toContain("wrong");
  });
});
