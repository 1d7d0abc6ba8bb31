import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { App } from "../../src/server/app";
import { HttpClient } from "../helpers/http-client";
import { archiveOf } from "../helpers/archive-builders";
import { createTestDatabase } from "../helpers/database";
import { TEST_REDIS_URL } from "../helpers/spawn-app";
import { freePort } from "../helpers/ports";

// A SIGTERM to `bun run start` while records are being judged: the judge stops first, while the API
// still answers, so its records report (or, with no grace, are given back) instead of waiting in
// `compiling` for a lease to lapse after the restart.
const ROOT = join(import.meta.dir, "../..");
const scratch = mkdtempSync(join(tmpdir(), "joj-start-shutdown-"));
chmodSync(scratch, 0o711);
// Below the kernel's ephemeral ports: an outgoing connection cannot take them first (ports.ts).
const port = await freePort();
const api = new HttpClient({
  handle: (r: Request) => fetch(new Request(r.url.replace("http://localhost", `http://127.0.0.1:${port}`), r)),
} as unknown as App);
let database: { url: string; drop: () => Promise<void> };
const queuePrefix = `joj-drill-${randomUUID()}`;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

function start(extra: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, "src/start.ts"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: "/tmp",
      DATA_DIR: join(scratch, "data"),
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      JUDGE_WORK_DIR: join(scratch, "work"),
      JUDGE_CACHE_DIR: join(scratch, "cache"),
      JUDGE_SLOT_UID_BASE: "68000",
      JUDGE_CONCURRENCY: "2",
      JUDGE_LEASE_SECONDS: "60",
      ...extra,
    },
  });
  let output = "";
  const drained = (async () => {
    for await (const chunk of child.stdout) output += new TextDecoder().decode(chunk);
  })();
  void (async () => {
    for await (const chunk of child.stderr) output += new TextDecoder().decode(chunk);
  })();
  const ready = async () => {
    for (let i = 0; i < 1200 && !output.includes('"msg":"judge ready"'); i++) await Bun.sleep(100);
    expect(output).toContain('"msg":"judge ready"');
  };
  return { child, ready, drained, log: () => output };
}

const SLOW = {
  languages: [
    {
      name: "python3",
      compileFiles: ["main.py"],
      compileArgs: [],
      caseDefault: {
        time: "3s",
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
const PROGRAM = "import time\ntime.sleep(0.7)\na, b = map(int, input().split())\nprint(a + b)\n";

async function recordState(id: string): Promise<{ state: string; lease: string | null }> {
  const sql = new Bun.SQL(database.url);
  try {
    const [row] = await sql`select state, lease_expires_at as lease from records where id = ${id}`;
    return row;
  } finally {
    await sql.close();
  }
}

test("SIGTERM while judging: the record reports before the judge stops; with no grace it is given back and judged at once after the restart", async () => {
  let run = start();
  await run.ready();
  const root = (
    await api.post("/auth/register?responseType=json&cookie=false", {
      username: "drill",
      email: "drill@sjtu.edu.cn",
      password: "drill password",
    })
  ).body.data.accessToken as string;
  const domain = (await api.post("/domains", { name: "Drill", url: "drill" }, { token: root })).body.data.id as string;
  const problem = (await api.post(`/domains/${domain}/problems`, { title: "Slow A + B" }, { token: root })).body.data
    .id as string;
  const archive = new FormData();
  archive.append(
    "file",
    new Blob([await archiveOf("zip", { "config.json": JSON.stringify(SLOW), in: "20 22\n", out: "42\n" })]),
    "config.zip",
  );
  expect(
    (await api.post(`/domains/${domain}/problems/${problem}/configs`, undefined, { token: root, multipart: archive }))
      .body.errorCode,
  ).toBe("Success");
  const submitOne = async () => {
    const form = new FormData();
    form.set("language", "python3");
    form.append("files", new File([PROGRAM], "main.py"));
    return (await api.post(`/domains/${domain}/problems/${problem}`, undefined, { token: root, multipart: form })).body
      .data.id as string;
  };
  const runningNow = async (id: string) => {
    for (let i = 0; i < 600 && (await recordState(id)).state !== "running"; i++) await Bun.sleep(50);
    expect((await recordState(id)).state).toBe("running");
  };

  // With the judge's grace: the record finishes and reports while the API still answers.
  const graced = await submitOne();
  await runningNow(graced);
  run.child.kill("SIGTERM");
  expect(await run.child.exited).toBe(0);
  expect(await recordState(graced)).toMatchObject({ state: "accepted" });

  // With no grace: the record is given back (queueing, no lease), and the next start judges it at once.
  run = start({ JUDGE_STOP_GRACE_SECONDS: "0" });
  await run.ready();
  const released = await submitOne();
  await runningNow(released);
  run.child.kill("SIGTERM");
  expect(await run.child.exited).toBe(0);
  const left = await recordState(released);
  expect(["queueing", "accepted"]).toContain(left.state);
  expect(left.lease).toBeNull();
  run = start();
  await run.ready();
  for (let i = 0; i < 300 && (await recordState(released)).state !== "accepted"; i++) await Bun.sleep(100);
  expect((await recordState(released)).state).toBe("accepted");
  run.child.kill("SIGTERM");
  expect(await run.child.exited).toBe(0);
}, 180_000);
