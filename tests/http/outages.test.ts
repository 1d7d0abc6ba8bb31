import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, type TestUser } from "../helpers/factories";
import { createTestDatabase } from "../helpers/database";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";

// PostgreSQL going away under load (a restart, a failover), as the app sees it: its connections reset
// and new ones refused. The real server keeps running for the other tests; a proxy in front is cut.
let t: TestApp;
let proxy: TcpProxy;
let user: TestUser;
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startTcpProxy(Number(new URL(database.url).port || 5432));
  t = await spawnApp({ DATABASE_URL: proxy.url(database.url) });
  user = await createUser(t, { role: "root" });
});
afterAll(async () => {
  proxy.restore();
  await t.close();
  proxy.close();
  await database.drop();
});

test("while PostgreSQL is down: 503 envelopes with Retry-After, one log line, no 500; then back with no restart", async () => {
  expect((await t.api.get("/users/me", { token: user.token })).status).toBe(200);
  proxy.cut();
  // A hot read's pool retries a connection for up to READ_CONNECT_SECONDS (5, db/statements.ts) before it
  // gives up: a request that reached it first answers then, the others at once (the ORM's pool fails fast).
  const cutAt = performance.now();
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i % 2
        ? t.api.get("/users/me", { token: user.token })
        : t.api.post("/domains", { name: `During the outage ${i}` }, { token: user.token }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(40).fill(503));
  expect(performance.now() - cutAt).toBeLessThan(6_500);
  expect(answers[0].body).toMatchObject({ errorCode: "Error", data: null });
  expect(answers[0].body.errorMsg).toContain("database is unavailable");
  expect(Number(answers[0].headers.get("retry-after"))).toBeGreaterThan(0);
  expect(t.logs.filter((l) => String(l.msg).startsWith("PostgreSQL unavailable"))).toHaveLength(1);
  expect(t.logs.filter((l) => l.level === "error")).toEqual([]);

  proxy.restore();
  let back = 0;
  for (let i = 0; i < 50 && back !== 200; i++) {
    back = (await t.api.get("/users/me", { token: user.token })).status;
    if (back !== 200) await Bun.sleep(100);
  }
  expect(back).toBe(200);
  expect((await t.api.post("/domains", { name: "After the outage" }, { token: user.token })).body.errorCode).toBe(
    "Success",
  );
}, 20_000);

test("while Redis is down: a request that needs it is a 503 with one log line; login still works (its limits step aside); then back", async () => {
  const redisProxy = await startTcpProxy(6379);
  const app = await spawnApp({
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    RATE_LOGIN_FAILURES_PER_IP: "10,10",
  });
  try {
    const root = await createUser(app, { role: "root", username: "Søren Kierkegaard" });
    await createUser(app, { role: "judger" }); // the judger list reads each judger's presence from Redis
    expect((await app.api.get("/admin/judgers", { token: root.token })).status).toBe(200);
    redisProxy.cut();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => app.api.get("/admin/judgers", { token: root.token })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(503));
    expect(answers[0].body.errorMsg).toContain("Redis");
    expect(app.logs.filter((l) => String(l.msg).startsWith("Redis unavailable"))).toHaveLength(1);
    expect(app.logs.filter((l) => l.level === "error")).toEqual([]);
    // The rate limits step aside rather than lock everyone out.
    const login = await app.api.post(
      "/auth/login?responseType=json&cookie=false",
      { username: root.user.username, password: root.password },
      { form: true },
    );
    expect(login.body.errorCode).toBe("Success");
    redisProxy.restore();
    let back = 0;
    for (let i = 0; i < 50 && back !== 200; i++) {
      back = (await app.api.get("/admin/judgers", { token: root.token })).status;
      if (back !== 200) await Bun.sleep(100);
    }
    expect(back).toBe(200);
  } finally {
    redisProxy.restore();
    await app.close();
    redisProxy.close();
  }
});
