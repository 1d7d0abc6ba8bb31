import { User } from "../../src/modules/users/user.entity";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

const gravatarOf = async (id: string) =>
  (
    await t.orm.em
      .fork()
      .getConnection()
      .execute<{ gravatar: string }[]>("select gravatar from users where id = ?", [id])
  )[0].gravatar;

describe("GET /users/me", () => {
  test("needs a login", async () => {
    expect((await t.api.get("/users/me")).status).toBe(401);
  });

  test("returns Horse's UserDetail and never the password hash", async () => {
    const { token, user } = await createUser(t, { username: "detail" });
    const response = await t.api.get("/users/me", { token });
    expect(response.body.errorCode).toBe("Success");
    expect(Object.keys(response.body.data).sort()).toEqual(
      [
        "id",
        "username",
        "gravatar",
        "role",
        "isActive",
        "createdAt",
        "updatedAt",
        "email",
        "studentId",
        "realName",
        "registerIp",
        "loginAt",
        "loginIp",
      ].sort(),
    );
    expect(response.body.data).toMatchObject({
      id: user.id,
      username: "detail",
      email: "detail@example.edu",
      role: "user",
      isActive: true,
      studentId: "",
      realName: "",
    });
    expect(response.body.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+00:00$/);
    expect(response.text).not.toContain("argon2");
  });
});

describe("PATCH /users/me", () => {
  test("needs a login", async () => {
    expect((await t.api.patch("/users/me", { gravatar: "x" })).status).toBe(401);
  });

  test("changes the gravatar; an empty body changes nothing", async () => {
    const { token, user } = await createUser(t);
    const changed = await t.api.patch("/users/me", { gravatar: "https://img.example/me.png" }, { token });
    expect(changed.body.data.gravatar).toBe("https://img.example/me.png");
    const unchanged = await t.api.patch("/users/me", {}, { token });
    expect(unchanged.body.data.gravatar).toBe("https://img.example/me.png");
    expect(await gravatarOf(user.id)).toBe("https://img.example/me.png");
  });

  test("fields outside UserEdit are ignored: a user cannot make themselves root", async () => {
    const { token } = await createUser(t);
    const response = await t.api.patch("/users/me", { role: "root", isActive: true, email: "x@y.z" }, { token });
    expect(response.body.data.role).toBe("user");
    expect(response.body.data.email).not.toBe("x@y.z");
  });

  test("a wrong type or an over-long value is a 422 and changes nothing", async () => {
    const { token, user } = await createUser(t);
    for (const body of [{ gravatar: 5 }, { gravatar: "x".repeat(513) }, [1, 2]]) {
      const response = await t.api.patch("/users/me", body, { token });
      expect(response.status).toBe(422);
    }
    expect(await gravatarOf(user.id)).toBe("");
  });

  test("malformed JSON is a 422, not a 500", async () => {
    const { token } = await createUser(t);
    const response = await t.api.patch("/users/me", undefined, { token, raw: "{not json" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body"]);
  });
});

describe("PATCH /users/me/password", () => {
  const login = (username: string, password: string) =>
    t.api.post("/auth/login?responseType=json&cookie=false", { username, password }, { form: true });

  test("needs a login", async () => {
    expect((await t.api.patch("/users/me/password", { newPassword: "x" })).status).toBe(401);
  });

  test("the current password must be right; then only the new one logs in", async () => {
    const { token, user, password } = await createUser(t);
    const wrong = await t.api.patch(
      "/users/me/password",
      { currentPassword: "nope", newPassword: "new-pw" },
      { token },
    );
    expect(wrong.body).toEqual({ errorCode: "UsernamePasswordError", errorMsg: "incorrect password", data: null });
    expect((await login(user.username, password)).body.errorCode).toBe("Success");

    const changed = await t.api.patch(
      "/users/me/password",
      { current_password: password, new_password: "new-pw" },
      { token },
    );
    expect(changed.body.errorCode).toBe("Success");
    expect((await login(user.username, "new-pw")).body.errorCode).toBe("Success");
    expect((await login(user.username, password)).body.errorCode).toBe("UsernamePasswordError");
  });

  test("an account without a password (OAuth sign-up) sets a first one without a current password", async () => {
    const { token, user } = await createUser(t);
    await t.orm.em.fork().nativeUpdate(User, { id: user.id }, { hashedPassword: "" });
    expect((await login(user.username, "")).status).toBe(422);
    const response = await t.api.patch("/users/me/password", { newPassword: "first-pw" }, { token });
    expect(response.body.errorCode).toBe("Success");
    expect((await login(user.username, "first-pw")).body.errorCode).toBe("Success");
  });

  test("an empty or missing new password is a 422", async () => {
    const { token, password } = await createUser(t);
    expect((await t.api.patch("/users/me/password", { currentPassword: password }, { token })).status).toBe(422);
    expect(
      (await t.api.patch("/users/me/password", { currentPassword: password, newPassword: "" }, { token })).status,
    ).toBe(422);
  });
});

describe("GET /users/{uid}", () => {
  test("needs a login", async () => {
    const { user } = await createUser(t);
    expect((await t.api.get(`/users/${user.id}`)).status).toBe(401);
  });

  test("another user's preview holds no e-mail or private fields", async () => {
    const me = await createUser(t);
    const other = await createUser(t, { username: "other-person" });
    const response = await t.api.get(`/users/${other.user.id}`, { token: me.token });
    expect(response.body.data).toEqual({ id: other.user.id, username: "other-person", gravatar: "" });
  });

  test("`me` is the caller; upper-case UUIDs work", async () => {
    const me = await createUser(t);
    expect((await t.api.get("/users/me", { token: me.token })).body.data.id).toBe(me.user.id);
    const upper = await t.api.get(`/users/${me.user.id.toUpperCase()}`, { token: me.token });
    expect(upper.body.data.id).toBe(me.user.id);
  });

  test("an unknown UUID is UserNotFoundError; a malformed one a 422", async () => {
    const me = await createUser(t);
    const unknown = await t.api.get("/users/00000000-0000-4000-8000-000000000000", { token: me.token });
    expect(unknown.body).toEqual({ errorCode: "UserNotFoundError", errorMsg: "user not found", data: null });
    const malformed = await t.api.get("/users/not-a-uuid", { token: me.token });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["path", "uid"]);
  });
});
