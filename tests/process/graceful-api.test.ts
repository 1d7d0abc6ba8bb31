import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestDatabase } from "../helpers/database";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../helpers/spawn-app";
import { archiveOf } from "../helpers/archive-builders";
import { freePort } from "../helpers/ports";

// systemd's default KillMode and `kill -- -PGID` send SIGTERM to the whole process group: `bun run`
// and the API each get one, and `bun run` forwards its own, so the API sees SIGTERM twice within
// milliseconds. The second must not cut the first short: every request in flight is answered.
const ROOT = join(import.meta.dir, "../..");
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("SIGTERM to the process group of `bun run start:api` under load: every request in flight is answered", async () => {
  // A port the kernel says is free: a random one collided with another process's now and then.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    JWT_SECRET: TEST_JWT_SECRET,
    PORT: String(port),
    HOST: "127.0.0.1",
    QUEUE_PREFIX: `joj-graceful-${port}`,
    // Logins wait for one password hash at a time: plenty of requests are still in flight at the signal.
    PASSWORD_HASH_CONCURRENCY: "1",
    PASSWORD_HASH_MAX_WAIT_MS: "600000",
    RATE_LOGIN_FAILURES_PER_IP: "0",
    RATE_LOGINS_PER_ACCOUNT: "0",
    RATE_LOGIN_FAILURES_PER_ACCOUNT: "0",
    RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: "0",
    RATE_SUBMISSIONS_PER_USER: "0",
    SHUTDOWN_TIMEOUT_MS: "30000",
  };
  const child = Bun.spawn(["bun", "run", "start:api"], {
    cwd: ROOT,
    detached: true, // a process group of its own, like a service
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  for (let i = 0; i < 200 && !output.includes('"msg":"api listening"'); i++) await Bun.sleep(50);
  expect(output).toContain('"msg":"api listening"');

  const json = (path: string, body: unknown, token?: string) =>
    fetch(`${base}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    }).then((r) => r.json() as Promise<{ errorCode: string; data: { accessToken: string; id: string } }>);
  const root = await json("/auth/register?responseType=json&cookie=false", {
    username: "Chloé Dupré",
    email: "chloe@ens.fr",
    password: "pw",
  });
  const token = root.data.accessToken;
  const domain = (await json("/domains", { name: "Graceful" }, token)).data.id;
  const problem = (await json(`/domains/${domain}/problems`, { title: "A + B" }, token)).data.id;
  // A config version with the data its case reads, unpacked by a configs worker of the same settings.
  const worker = Bun.spawn(["bun", "--no-env-file", "workers/configs.ts"], { cwd: ROOT, env, stdout: "ignore" });
  const archive = new FormData();
  const config = JSON.stringify({ languages: [{ name: "c", cases: [{ score: 100 }] }] });
  const data = await archiveOf("zip", { "config.json": config, "case.in": "1 2\n", "case.out": "3\n" });
  archive.append("file", new Blob([data]), "config.zip");
  const uploaded = await fetch(`${base}/domains/${domain}/problems/${problem}/configs`, {
    method: "POST",
    body: archive,
    headers: { authorization: `Bearer ${token}` },
  }).then((r) => r.json() as Promise<{ errorCode: string }>);
  worker.kill("SIGTERM");
  await worker.exited;
  expect(uploaded.errorCode).toBe("Success");

  const login = () =>
    fetch(`${base}/auth/login?responseType=json&cookie=false`, {
      method: "POST",
      body: new URLSearchParams({ username: "Chloé Dupré", password: "pw" }),
    });
  const upload = () => {
    const form = new FormData();
    form.set("language", "c");
    form.append("files", new File(["int main(void) { return 0; }\n/*", "x".repeat(200_000), "*/\n"], "main.c"));
    return fetch(`${base}/domains/${domain}/problems/${problem}`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${token}` },
    });
  };
  const inFlight = [...Array.from({ length: 30 }, login), ...Array.from({ length: 10 }, upload)].map((p) =>
    p.then(
      async (r) => ({ status: r.status, code: ((await r.json()) as { errorCode: string }).errorCode }),
      (e: Error) => ({ status: 0, code: e.message }),
    ),
  );
  await Bun.sleep(200);
  process.kill(-child.pid, "SIGTERM");
  const answers = await Promise.all(inFlight);
  expect(answers.filter((a) => a.status !== 200 || a.code !== "Success")).toEqual([]);
  expect(await child.exited).toBe(0);
  await drained;
  expect(output).toContain('"msg":"stopped"');
}, 90_000);
