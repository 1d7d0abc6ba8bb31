import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestDatabase } from "../helpers/database";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../helpers/spawn-app";
import { freePort } from "../helpers/ports";

// Behind a load balancer (docs/operations.md, "Scaling out") an API told to stop must keep serving until the
// balancer's next probe has seen its /readyz at 503: a port closed at once meets requests the balancer still
// sends, and a proxy that cannot re-send a POST body answers those with a 502.
const ROOT = join(import.meta.dir, "../..");
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

test("SIGTERM with SHUTDOWN_DRAIN_MS: /readyz is 503 while requests and streams are still served, then it stops", async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = Bun.spawn(["bun", "src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: String(port),
      HOST: "127.0.0.1",
      QUEUE_PREFIX: `joj-drain-${port}`,
      PASSWORD_HASH_MAX_WAIT_MS: "600000",
      RATE_REGISTRATIONS_PER_IP: "0",
      SHUTDOWN_DRAIN_MS: "3000",
      LOG_LEVEL: "info",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drained = Promise.all(
    [child.stdout, child.stderr].map(async (stream) => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk);
    }),
  );
  for (let i = 0; i < 200 && !output.includes('"msg":"api listening"'); i++) await Bun.sleep(50);
  expect(output).toContain('"msg":"api listening"');

  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${origin}/api/v1${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    }).then((r) => r.json() as Promise<{ errorCode: string; data: { accessToken: string; id: string } }>);
  const root = await post("/auth/register?responseType=json&cookie=false", {
    username: "Ngô Bảo Châu",
    email: "ngo@ias.edu",
    password: "pw-drain",
  });
  const token = root.data.accessToken;
  const domain = (await post("/domains", { name: "Drain" }, token)).data.id;
  const stream = await fetch(`${origin}/api/v1/domains/${domain}/records/events`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
  });
  expect(stream.status).toBe(200);
  const reader = stream.body!.getReader();
  await reader.read(); // the position frame: the stream is open

  child.kill("SIGTERM");
  let ready = 200;
  for (let i = 0; i < 100 && ready === 200; i++) {
    ready = (await fetch(`${origin}/readyz`)).status;
    if (ready === 200) await Bun.sleep(20);
  }
  expect(ready).toBe(503);
  // The balancer has not probed yet: what it still sends is served, a write included, and the stream stays.
  const late = await post("/domains", { name: "Sent during the drain" }, token);
  expect(late.errorCode).toBe("Success");
  const version = await fetch(`${origin}/api/v1/version`);
  expect(version.status).toBe(200);
  expect(child.exitCode).toBeNull();

  // After the drain the stream ends, the port closes and the process exits cleanly.
  let ended = false;
  while (!ended) ended = (await reader.read()).done;
  expect(await child.exited).toBe(0);
  await drained;
  expect(
    await fetch(`${origin}/readyz`).then(
      () => "answered",
      () => "refused",
    ),
  ).toBe("refused");
}, 60_000);
