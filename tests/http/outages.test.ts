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
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
    i % 2 ? t.api.get("/users/me", { token: user.token }) : t.api.post("/domains", { name: `During the outage ${i}` }, { token: user.token })));
  expect(answers.map((a) => a.status)).toEqual(Array(40).fill(503));
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
  expect((await t.api.post("/domains", { name: "After the outage" }, { token: user.token })).body.errorCode).toBe("Success");
});
