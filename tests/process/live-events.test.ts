import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { freePort } from "../helpers/ports";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnApp, TEST_JWT_SECRET, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";
import { submit, submission } from "../helpers/records";
import { parseSse } from "../helpers/sse";

// A student follows a real submission with `curl -N` on a second API process, while the real judge
// reports to the first: the events travel through Redis pub/sub between the two.
const ROOT = join(import.meta.dir, "../..");
const UID_BASE = 64_000;
const CONFIG = {
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-o", "main", "main.c"],
      caseDefault: {
        time: "1s",
        memory: "64m",
        score: 50,
        category: "pretest",
        executeFiles: ["main"],
        executeArgs: ["./main"],
      },
      cases: [
        { executeInputFile: "1.in", executeOutputFile: "1.out" },
        { executeInputFile: "2.in", executeOutputFile: "2.out" },
      ],
    },
  ],
};
const DATA = { "1.in": "1 2\n", "1.out": "3\n", "2.in": "40 2\n", "2.out": "42\n" };
const SOLUTION = `#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0; }\n`;

let t: TestApp;
let cast: Cast;
let second: ReturnType<typeof Bun.spawn> | null = null;
let secondUrl: string;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  const port = await freePort();
  secondUrl = `http://127.0.0.1:${port}`;
  second = Bun.spawn(["bun", "src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      MODE: "development",
      HOST: "127.0.0.1",
      PORT: String(port),
      JWT_SECRET: TEST_JWT_SECRET,
      DATABASE_URL: t.config.databaseUrl!,
      REDIS_URL: t.config.redisUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
      STORAGE_DIR: t.config.storage.dir,
      DATA_DIR: mkdtempSync(join(tmpdir(), "joj-second-api-")),
      LOG_LEVEL: "warn",
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${secondUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await Bun.sleep(50);
  }
}, 60_000);
afterAll(async () => {
  second?.kill("SIGTERM");
  await second?.exited;
  await t.app.stop(true);
  await t.close();
});

test("curl -N on a record's events at a second API process: compiling, running, each case, the final state", async () => {
  const problem = await problemWithData(t, cast, CONFIG, DATA);
  const record = await submit(
    t,
    cast.member.token,
    `/domains/${cast.domain.id}/problems/${problem}`,
    submission("c", { "main.c": SOLUTION }),
  );
  const id = record.body.data.id as string;

  const curl = Bun.spawn(
    [
      "curl",
      "-N",
      "-sS",
      "--max-time",
      "90",
      "-H",
      `Authorization: Bearer ${cast.member.token}`,
      `${secondUrl}/api/v1/domains/${cast.domain.id}/records/${id}/events`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const reader = curl.stdout.getReader();
  let text = "";
  const decoder = new TextDecoder();
  // The record as it waits, before any judge runs: the stream is open on the second process.
  while (!text.includes("event: record")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  expect(text).toContain('"state":"queueing"');

  // Only now does a judge start: every state change below happens while curl listens.
  const judge = await startJudge(judgeEnv(t, listen(t), await judgerKey(t, cast), UID_BASE));
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(await curl.exited).toBe(0);
  } finally {
    await judge.stop();
  }
  const { events } = parseSse(text);
  const states = [
    ...new Set(events.filter((e) => e.event === "record").map((e) => (e.data as { state: string }).state)),
  ];
  expect(states).toEqual(["queueing", "fetched", "compiling", "running", "accepted"]);
  const cases = events
    .filter((e) => e.event === "case")
    .map((e) => e.data as { index: number; state: string; stdout: string });
  expect(cases.map((c) => [c.index, c.state])).toEqual([
    [0, "accepted"],
    [1, "accepted"],
  ]);
  expect(cases[1].stdout).toBe("42\n");
  expect(events.at(-1)).toMatchObject({ event: "end", data: { state: "accepted" } });
}, 120_000);

test("SIGTERM ends the open streams, so the process stops cleanly instead of waiting on them", async () => {
  const curl = Bun.spawn(
    [
      "curl",
      "-N",
      "-sS",
      "--max-time",
      "60",
      "-H",
      `Authorization: Bearer ${cast.member.token}`,
      `${secondUrl}/api/v1/domains/${cast.domain.id}/records/events`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const reader = curl.stdout.getReader();
  // `retry:` is the stream's first frame: it is open.
  expect(new TextDecoder().decode((await reader.read()).value)).toContain("retry:");
  const stderr = new Response(second!.stderr as ReadableStream).text();
  second!.kill("SIGTERM");
  expect(await second!.exited).toBe(0);
  second = null;
  while (!(await reader.read()).done);
  // curl saw the server end the stream (exit 0; 28 would be its own time limit, 18 a cut transfer).
  expect(await curl.exited).toBe(0);
  expect(await stderr).not.toContain("timed out");
}, 60_000);
