/**
 * `bun run bench:logins`: another user's login while one user floods correct logins. The API runs as
 * a process of its own (`bun src/main.ts`, production limits and hash settings); the load comes from
 * this one. The floor is the same login with nobody else on the machine, measured in the same run.
 *
 *   FLOOD=60 (logins kept in flight) ADDRESSES=1 (addresses the flood comes from) SAMPLES=15
 */
import { join } from "node:path";
import { createTestDatabase } from "../tests/helpers/database";
import { TEST_REDIS_URL } from "../tests/helpers/spawn-app";
import { fmt, report } from "./harness";

const FLOOD = Number(process.env.FLOOD ?? 60);
const ADDRESSES = Number(process.env.ADDRESSES ?? 1);
const SAMPLES = Number(process.env.SAMPLES ?? 15);
const port = 41_000 + Math.floor(Math.random() * 1_000);
const base = `http://127.0.0.1:${port}/api/v1`;
// Limits live in Redis across runs: names of this run's own.
const FLOODER = `flooder-${port}`;
const STUDENT = `student-${port}`;
const database = await createTestDatabase();
const server = Bun.spawn([process.execPath, "--no-env-file", join(import.meta.dir, "../src/main.ts")], {
  env: {
    PATH: process.env.PATH ?? "",
    HOME: "/tmp",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `bench-logins-${port}`,
    DATA_DIR: "/tmp/joj-bench-logins",
    JWT_SECRET: "bench-logins-secret-0123456789abcdef0123456789",
    TRUSTED_PROXIES: "127.0.0.1/32",
    LOG_LEVEL: "error",
  },
  stdout: "ignore",
  stderr: "inherit",
});

const post = (path: string, body: Record<string, string>, from = "192.0.2.1") =>
  fetch(`${base}${path}`, {
    method: "POST",
    body: new URLSearchParams(body),
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
  });
const login = (username: string, from: string) =>
  post("/auth/login?responseType=json&cookie=false", { username, password: `${username} password` }, from);

try {
  for (let i = 0; i < 200; i++)
    if (
      await fetch(`${base}/version`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    else await Bun.sleep(100);
  for (const [i, name] of [FLOODER, STUDENT].entries()) {
    const made = await fetch(`${base}/auth/register?responseType=json&cookie=false`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${100 + i}` },
      body: JSON.stringify({ username: name, email: `${name}@sjtu.edu.cn`, password: `${name} password` }),
    });
    if (!made.ok) throw new Error(`register ${name}: ${await made.text()}`);
  }
  /** The student's login times, in ms, one after another. */
  const sample = async () => {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      const answer = await login(STUDENT, `198.51.100.${(i % 200) + 1}`);
      if (!answer.ok) throw new Error(`student login: HTTP ${answer.status}`);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b);
  };
  await sample();
  const quiet = await sample();
  let flooding = true;
  const outcomes = { ok: 0, refused: 0 };
  const flood = Array.from({ length: FLOOD }, async (_, i) => {
    while (flooding) {
      const answer = await login(FLOODER, `203.0.113.${(i % ADDRESSES) + 1}`);
      if (answer.status === 429) {
        outcomes.refused++;
        await Bun.sleep(5);
      } else outcomes.ok++;
    }
  });
  await Bun.sleep(500);
  const loaded = await sample();
  flooding = false;
  await Promise.all(flood);
  const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];
  const worst = (xs: number[]) => xs[xs.length - 1];
  report(`A student's login while one user keeps ${FLOOD} correct logins in flight from ${ADDRESSES} address(es)`, [
    ["floor: the login, nobody else (median / worst)", `${fmt(median(quiet))} / ${fmt(worst(quiet))} ms`],
    ["during the flood (median / worst)", `${fmt(median(loaded))} / ${fmt(worst(loaded))} ms`],
    [
      "during ÷ floor (median / worst)",
      `${fmt(median(loaded) / median(quiet))}x / ${fmt(worst(loaded) / median(quiet))}x`,
    ],
    ["the flood's logins: hashed / refused (429)", `${outcomes.ok} / ${outcomes.refused}`],
  ]);
} finally {
  server.kill("SIGTERM");
  await server.exited;
  await database.drop();
}
