import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { countUsers, createUser } from "../helpers/factories";
import { setCookies } from "../helpers/http-client";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

const JSON_NO_COOKIE = "?responseType=json&cookie=false";
const decode = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

describe("POST /auth/register", () => {
  test("the first user ever becomes site root, the next ones plain users", async () => {
    const first = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      username: "First",
      email: "first@example.edu",
      password: "pw1",
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ errorCode: "Success", errorMsg: null, data: { tokenType: "bearer" } });
    expect(decode(first.body.data.accessToken)).toMatchObject({
      role: "root",
      category: "user",
      username: "First",
      fresh: true,
      type: "access",
    });

    const second = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      username: "second",
      email: "second@example.edu",
      password: "pw2",
    });
    expect(decode(second.body.data.accessToken).role).toBe("user");
    expect(decode(second.body.data.refreshToken)).toMatchObject({ type: "refresh", category: "user" });
  });

  test("the access token carries exactly the seed's claims plus gravatar, isActive and oauthName", async () => {
    const response = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      username: "claims",
      email: "claims@example.edu",
      password: "pw",
    });
    const claims = decode(response.body.data.accessToken);
    expect(Object.keys(claims).sort()).toEqual(
      [
        "sub",
        "iat",
        "nbf",
        "jti",
        "exp",
        "type",
        "fresh",
        "csrf",
        "category",
        "username",
        "email",
        "student_id",
        "real_name",
        "role",
        "oauth_name",
        "oauthName",
        "gravatar",
        "isActive",
      ].sort(),
    );
    expect(claims.exp - claims.iat).toBe(14 * 24 * 3600);
    expect(decode(response.body.data.refreshToken).exp - claims.iat).toBe(30 * 24 * 3600);
    const header = JSON.parse(Buffer.from(response.body.data.accessToken.split(".")[0], "base64url").toString());
    expect(header).toEqual({ alg: "HS256", typ: "JWT" });
  });

  test("usernames and e-mails are unique case-insensitively, with a message saying which", async () => {
    await createUser(t, { username: "Taken", email: "taken@example.edu" });
    const before = await countUsers(t);
    const name = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      username: "tAKEN",
      email: "new@example.edu",
      password: "pw",
    });
    expect(name.body).toEqual({ errorCode: "UserRegisterError", errorMsg: "username is already taken", data: null });
    const email = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      username: "fresh",
      email: "TAKEN@example.edu",
      password: "pw",
    });
    expect(email.body).toEqual({ errorCode: "UserRegisterError", errorMsg: "email is already registered", data: null });
    expect(await countUsers(t)).toBe(before);
  });

  test.each([
    [{ username: "u", email: "u@example.edu" }, "password not provided"],
    [{ username: "u", email: "u@example.edu", password: "" }, "password not provided"],
    [{ email: "u@example.edu", password: "pw" }, "username not provided"],
    [{ username: "u", password: "pw" }, "email not provided"],
  ])("missing fields are UserRegisterError in Horse's order: %j", async (body, message) => {
    const response = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, body);
    expect(response.body).toEqual({ errorCode: "UserRegisterError", errorMsg: message, data: null });
  });

  test.each([
    [{ username: "u", email: "not-an-email", password: "pw" }, ["body", "email"]],
    [{ username: "has@sign", email: "a@example.edu", password: "pw" }, ["body", "username"]],
    [{ username: " padded ", email: "a@example.edu", password: "pw" }, ["body", "username"]],
    [{ username: "u", email: "a@example.edu", password: 42 }, ["body", "password"]],
    [{ username: "u", email: "a@example.edu", password: "x".repeat(1025) }, ["body", "password"]],
  ])("malformed input is a 422 naming the field and creates nothing: %j", async (body, loc) => {
    const before = await countUsers(t);
    const response = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, body);
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(loc);
    expect(typeof response.body.detail[0].msg).toBe("string");
    // The refused body is echoed (Horse does), but never its password.
    const { password: _password, ...echoed } = body as Record<string, unknown>;
    expect(response.body.body).toEqual(echoed);
    expect(response.text).not.toContain(String(_password ?? "\u0000"));
    expect(await countUsers(t)).toBe(before);
  });

  test("OAuth registration fields are accepted by the schema but refused without a provider session", async () => {
    const response = await t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
      oauth_name: "github",
      oauth_account_id: "1",
    });
    expect(response.body.errorCode).toBe("UserRegisterError");
  });

  test("responseType is required", async () => {
    const response = await t.api.post("/auth/register", { username: "x", email: "x@example.edu", password: "pw" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ["query", "responseType"], type: "value_error.missing" });
  });

  test("concurrent registrations of the same name create one account", async () => {
    const before = await countUsers(t);
    const attempts = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.api.post(`/auth/register${JSON_NO_COOKIE}`, {
          username: "racer",
          email: "racer@example.edu",
          password: "pw",
        }),
      ),
    );
    expect(attempts.filter((r) => r.body.errorCode === "Success")).toHaveLength(1);
    expect(attempts.every((r) => r.status === 200)).toBe(true);
    expect(await countUsers(t)).toBe(before + 1);
  });
});

describe("POST /auth/login", () => {
  test("a form login returns tokens and sets HttpOnly SameSite=Lax cookies by default", async () => {
    const { user, password } = await createUser(t);
    const response = await t.api.post(
      "/auth/login?responseType=json",
      { username: user.username, password },
      { form: true },
    );
    expect(response.body.errorCode).toBe("Success");
    expect(decode(response.body.data.accessToken)).toMatchObject({ sub: user.id, fresh: true, oauth_name: "" });
    const cookies = setCookies(response);
    expect(cookies.access_token).toContain("HttpOnly");
    expect(cookies.access_token).toContain("SameSite=Lax");
    expect(cookies.access_token).toContain("Max-Age=1209600");
    expect(cookies.refresh_token).toContain("Max-Age=2592000");
    expect(cookies.access_token).not.toContain("Secure");
    expect(cookies.csrf_access_token).toBeUndefined();
  });

  test("Horse's optional form fields are ignored; username is case-insensitive; e-mail works too", async () => {
    const { user, password } = await createUser(t, { username: "MixedCase" });
    const form = { grantType: "password", username: "mixedcase", password, scope: "", clientId: "", clientSecret: "" };
    expect((await t.api.post(`/auth/login${JSON_NO_COOKIE}`, form, { form: true })).body.errorCode).toBe("Success");
    const byEmail = await t.api.post(
      `/auth/login${JSON_NO_COOKIE}`,
      { username: user.email.toUpperCase(), password },
      { form: true },
    );
    expect(byEmail.body.errorCode).toBe("Success");
  });

  test("wrong password and unknown user give the same answer", async () => {
    const { user } = await createUser(t);
    const wrong = await t.api.post(
      `/auth/login${JSON_NO_COOKIE}`,
      { username: user.username, password: "nope" },
      { form: true },
    );
    const unknown = await t.api.post(
      `/auth/login${JSON_NO_COOKIE}`,
      { username: "nobody-here", password: "nope" },
      { form: true },
    );
    expect(wrong.body).toEqual({
      errorCode: "UsernamePasswordError",
      errorMsg: "incorrect username or password",
      data: null,
    });
    expect(unknown.body).toEqual(wrong.body);
    expect(setCookies(wrong)).toEqual({});
  });

  test("a deactivated account cannot log in", async () => {
    const { user, password } = await createUser(t, { isActive: false });
    const response = await t.api.post(
      `/auth/login${JSON_NO_COOKIE}`,
      { username: user.username, password },
      { form: true },
    );
    expect(response.body.errorCode).toBe("UsernamePasswordError");
  });

  test("missing username or password is a 422", async () => {
    const response = await t.api.post(`/auth/login${JSON_NO_COOKIE}`, { username: "x" }, { form: true });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "password"]);
  });

  test("login records the time and address of the login", async () => {
    const { user, password } = await createUser(t);
    const before = Date.now();
    await t.api.post(`/auth/login${JSON_NO_COOKIE}`, { username: user.username, password }, { form: true });
    const me = await t.api.get("/users/me", {
      token: (await t.api.post(`/auth/login${JSON_NO_COOKIE}`, { username: user.username, password }, { form: true }))
        .body.data.accessToken,
    });
    expect(new Date(me.body.data.loginAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(me.body.data.loginIp).toBe("127.0.0.1");
  });
});
