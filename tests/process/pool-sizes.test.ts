import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { join } from "node:path";
import { ADMIN_URL, createTestDatabase } from "../helpers/database";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../helpers/spawn-app";
import { freePort } from "../helpers/ports";

// DATABASE_POOL_SIZE and DATABASE_READ_POOL_SIZE bound what one API process opens to PostgreSQL
// (docs/operations.md "Connections"): under a burst of reads through both pools, PostgreSQL never sees more
// of its connections than the two sizes together.
const ROOT = join(import.meta.dir, "../..");
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("an API with pools of 2 and 1 holds at most 3 connections under 200 requests at once", async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const child = Bun.spawn(["bun", "--no-env-file", "src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: "2",
      DATABASE_READ_POOL_SIZE: "1",
      REDIS_URL: TEST_REDIS_URL,
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: String(port),
      HOST: "127.0.0.1",
      QUEUE_PREFIX: `joj-pools-${port}`,
      PASSWORD_HASH_CONCURRENCY: "1",
      LOG_FORMAT: "json",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const admin = new SQL(ADMIN_URL, { max: 1 });
  try {
    for (let i = 0; i < 300 && !output.includes('"msg":"api listening"'); i++) await Bun.sleep(50);
    expect(output).toContain('"msg":"api listening"');
    const registered = await fetch(`${base}/auth/register?responseType=json&cookie=false`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "Nadia Okafor", email: "nadia@uni.example", password: "pw" }),
    }).then((r) => r.json() as Promise<{ data: { accessToken: string } }>);
    const headers = { authorization: `Bearer ${registered.data.accessToken}` };
    const name = new URL(database.url).pathname.slice(1);
    const counts: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [row] = await admin`select count(*)::int as n from pg_stat_activity where datname = ${name}`;
        counts.push(row.n);
      }
    })();
    // The caller's standing through the read pool, the domains list through the ORM's.
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${base}/${i % 2 ? "users/me" : "domains"}`, { headers }).then((r) => r.status),
      ),
    );
    sampling = false;
    await sampler;
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    expect(counts.length).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
  } finally {
    child.kill("SIGTERM");
    await child.exited;
    await drained;
    await admin.close();
  }
}, 60_000);
