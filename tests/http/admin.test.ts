import { AccessKey } from "../../src/modules/identity/credentials/access-key.entity";
import { User } from "../../src/modules/users/user.entity";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { countUsers, createUser, type TestUser } from "../helpers/factories";

let t: TestApp;
let root: TestUser;
let admin: TestUser;
let plain: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  root = await createUser(t, { role: "root", username: "site-root" });
  admin = await createUser(t, { role: "admin" });
  plain = await createUser(t);
});
afterAll(() => t.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

describe("who may use /admin", () => {
  const endpoints = (uid: string): [string, string, unknown][] => [
    ["GET", "/admin/users", undefined],
    ["GET", `/admin/${uid}`, undefined],
    ["GET", "/admin/judgers", undefined],
    ["POST", "/admin/judgers", { username: "j-denied", password: "pw", email: "j-denied@example.edu" }],
  ];

  test("nobody without a token", async () => {
    for (const [method, path, body] of endpoints(plain.user.id)) {
      expect((await t.api.call(method, path, body)).status).toBe(401);
    }
  });

  test("not a plain user, not a site admin, not a judger: only the site root", async () => {
    const judger = await createUser(t, { role: "judger" });
    for (const caller of [plain, admin, judger]) {
      for (const [method, path, body] of endpoints(plain.user.id)) {
        const response = await t.api.call(method, path, body, { token: caller.token });
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ detail: "site root Permission Denied." });
      }
    }
    expect(await t.orm.em.fork().count(User, { username: "j-denied" })).toBe(0);
  });
});

describe("GET /admin/users", () => {
  test("lists users with the total before paging", async () => {
    const total = await countUsers(t);
    const page = await t.api.get("/admin/users?limit=2&offset=1", { token: root.token });
    expect(page.body.data.count).toBe(total);
    expect(page.body.data.results).toHaveLength(2);
    expect(Object.keys(page.body.data.results[0]).sort()).toEqual(["gravatar", "id", "isActive", "role", "username"]);
  });

  test("pages never skip or repeat a row, with or without ordering", async () => {
    for (let i = 0; i < 4; i++) await createUser(t);
    const total = await countUsers(t);
    for (const ordering of ["", "created_at", "-updated_at,created_at"]) {
      const seen: string[] = [];
      for (let offset = 0; offset < total; offset += 3) {
        const page = await t.api.get(`/admin/users?limit=3&offset=${offset}&ordering=${ordering}`, {
          token: root.token,
        });
        seen.push(...page.body.data.results.map((u: { id: string }) => u.id));
      }
      expect(new Set(seen).size).toBe(total);
      expect(seen).toHaveLength(total);
    }
  });

  test("newest first by default; ordering=created_at reverses it", async () => {
    const newest = await createUser(t);
    const byDefault = await t.api.get("/admin/users?limit=1", { token: root.token });
    expect(byDefault.body.data.results[0].id).toBe(newest.user.id);
    const ascending = await t.api.get("/admin/users?limit=1&ordering=created_at", { token: root.token });
    expect(ascending.body.data.results[0].id).toBe(root.user.id);
  });

  test("an unknown ordering field is IllegalFieldError", async () => {
    const response = await t.api.get("/admin/users?ordering=-username", { token: root.token });
    expect(response.body).toEqual({
      errorCode: "IllegalFieldError",
      errorMsg: "-username is not available in ordering fields",
      data: null,
    });
  });

  test.each([
    ["limit=501", "limit", "value_error.number.not_le"],
    ["limit=-1", "limit", "value_error.number.not_ge"],
    ["offset=-1", "offset", "value_error.number.not_ge"],
    ["limit=ten", "limit", "type_error.integer"],
  ])("paging outside the bounds is a 422 (%s)", async (query, field, type) => {
    const response = await t.api.get(`/admin/users?${query}`, { token: root.token });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ["query", field], type });
  });

  test("limit=0 returns only the count", async () => {
    const response = await t.api.get("/admin/users?limit=0", { token: root.token });
    expect(response.body.data.results).toEqual([]);
    expect(response.body.data.count).toBeGreaterThan(0);
  });
});

describe("GET /admin/{uid}", () => {
  test("a user's full detail, `me` included; unknown ids are UserNotFoundError", async () => {
    const other = await t.api.get(`/admin/${plain.user.id}`, { token: root.token });
    expect(other.body.data).toMatchObject({ id: plain.user.id, email: plain.user.email, role: "user" });
    expect((await t.api.get("/admin/me", { token: root.token })).body.data.id).toBe(root.user.id);
    const unknown = await t.api.get("/admin/00000000-0000-4000-8000-000000000000", { token: root.token });
    expect(unknown.body.errorCode).toBe("UserNotFoundError");
    expect((await t.api.get("/admin/nope", { token: root.token })).status).toBe(422);
  });
});

describe("judgers", () => {
  test("creating one returns working tokens and a working, non-expiring access key", async () => {
    const created = await t.api.post(
      "/admin/judgers",
      { username: "judger-1", password: "pw", email: "judger-1@example.edu" },
      { token: root.token },
    );
    expect(created.body.errorCode).toBe("Success");
    const { accessToken, refreshToken, tokenType, accessKeyId, secretAccessKey } = created.body.data;
    expect(tokenType).toBe("bearer");
    expect(refreshToken).not.toBe("");
    expect(accessKeyId).toMatch(/^jk_[0-9a-f]{20}$/);
    expect(secretAccessKey.length).toBeGreaterThanOrEqual(43);

    const me = await t.api.get("/users/me", { token: accessToken });
    expect(me.body.data).toMatchObject({ username: "judger-1", role: "judger", isActive: true });
    const byKey = await t.api.get("/users/me", { headers: { authorization: basic(accessKeyId, secretAccessKey) } });
    expect(byKey.body.data.username).toBe("judger-1");
    const [row] = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ secret_digest: string }[]>("select secret_digest from access_keys where key_id = ?", [accessKeyId]);
    expect(row.secret_digest).not.toContain(secretAccessKey);
  });

  test("a wrong secret or an unknown key id is refused", async () => {
    const created = await t.api.post(
      "/admin/judgers",
      { username: "judger-2", password: "pw", email: "judger-2@example.edu" },
      { token: root.token },
    );
    const { accessKeyId, secretAccessKey } = created.body.data;
    expect(
      (await t.api.get("/users/me", { headers: { authorization: basic(accessKeyId, `${secretAccessKey}x`) } })).status,
    ).toBe(401);
    expect(
      (await t.api.get("/users/me", { headers: { authorization: basic("jk_00000000000000000000", secretAccessKey) } }))
        .status,
    ).toBe(401);
  });

  test("a duplicate name is refused and nothing half-made is left behind", async () => {
    const before = await countUsers(t);
    const keysBefore = await t.orm.em.fork().count(AccessKey, {});
    const response = await t.api.post(
      "/admin/judgers",
      { username: "JUDGER-1", password: "pw", email: "other@example.edu" },
      { token: root.token },
    );
    expect(response.body).toMatchObject({ errorCode: "UserRegisterError", errorMsg: "username is already taken" });
    expect(await countUsers(t)).toBe(before);
    expect(await t.orm.em.fork().count(AccessKey, {})).toBe(keysBefore);
  });

  test("every field is required", async () => {
    for (const body of [
      { password: "pw", email: "a@example.edu" },
      { username: "j", email: "a@example.edu" },
      { username: "j", password: "pw" },
      { username: "bad\u200bname", password: "pw", email: "a@example.edu" },
      { username: " padded", password: "pw", email: "a@example.edu" },
    ]) {
      expect((await t.api.post("/admin/judgers", body, { token: root.token })).status).toBe(422);
    }
  });

  test("the list shows only judgers, and which of them were seen recently", async () => {
    const created = await t.api.post(
      "/admin/judgers",
      { username: "judger-3", password: "pw", email: "judger-3@example.edu" },
      { token: root.token },
    );
    const before = await t.api.get("/admin/judgers?ordering=-created_at", { token: root.token });
    expect(before.body.data.results.every((j: { role: string }) => j.role === "judger")).toBe(true);
    const fresh = before.body.data.results.find((j: { username: string }) => j.username === "judger-3");
    expect(fresh).toMatchObject({ isAlive: false, lastSeenAt: null });

    await t.api.get("/users/me", { token: created.body.data.accessToken });
    // The presence write is fire-and-forget: wait until the list shows it.
    let seen: { isAlive: boolean; lastSeenAt: string } | undefined;
    for (let attempt = 0; attempt < 100 && !seen?.isAlive; attempt++) {
      const after = await t.api.get("/admin/judgers", { token: root.token });
      seen = after.body.data.results.find((j: { username: string }) => j.username === "judger-3");
      if (!seen?.isAlive) await Bun.sleep(10);
    }
    if (!seen) throw new Error("judger-3 not listed");
    expect(seen.isAlive).toBe(true);
    expect(new Date(seen.lastSeenAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});
