import { User } from "../../src/modules/users/user.entity";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, signClaims } from "../helpers/factories";
import { cookieHeader, setCookies } from "../helpers/http-client";

let t: TestApp;
let csrf: TestApp;
beforeAll(async () => {
  t = await spawnApp();
  // Production mode with a public https origin: CSRF protection on, Secure cookies.
  csrf = await spawnApp({ MODE: "production", PUBLIC_URL: "https://joj.example.edu" });
});
afterAll(async () => {
  await t.close();
  await csrf.close();
});

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("tokens that must be refused", () => {
  test("no token: 401 Unauthorized", async () => {
    const response = await t.api.get("/users/me");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: "Unauthorized" });
  });

  test("an expired token", async () => {
    const { tokens } = await createUser(t);
    const claims = JSON.parse(Buffer.from(tokens.accessToken.split(".")[1], "base64url").toString());
    const expired = await signClaims(t, { ...claims, exp: Math.floor(Date.now() / 1000) - 10 });
    expect((await t.api.get("/users/me", { token: expired })).status).toBe(401);
  });

  test("a tampered payload, a token signed with another secret, and alg: none", async () => {
    const { token, user } = await createUser(t);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = `${header}.${b64({ ...claims, role: "root" })}.${signature}`;
    const otherSecret = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode("another-secret"));
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims, sub: user.id })}.`;
    const hs512 = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS512" })
      .sign(new TextEncoder().encode(t.config.jwtSecret));
    for (const bad of [tampered, otherSecret, none, hs512]) {
      expect((await t.api.get("/users/me", { token: bad })).status).toBe(401);
    }
  });

  test("a refresh token where an access token is needed, and a token with only `sub`", async () => {
    const { refreshToken, user } = await createUser(t);
    expect((await t.api.get("/users/me", { token: refreshToken })).status).toBe(401);
    const bare = await signClaims(t, { sub: user.id, exp: Math.floor(Date.now() / 1000) + 60 });
    expect((await t.api.get("/users/me", { token: bare })).status).toBe(401);
  });

  test("an oauth-category (half-registered) token is not a login", async () => {
    const oauth = await signClaims(t, {
      sub: "github-12345",
      type: "access",
      category: "oauth",
      username: "octo",
      csrf: "x",
      jti: "j",
      exp: Math.floor(Date.now() / 1000) + 60,
      role: null,
      isActive: false,
      fresh: true,
      oauth_name: "github",
    });
    expect((await t.api.get("/users/me", { token: oauth })).status).toBe(401);
    expect((await t.api.get("/jwt_decoded", { token: oauth })).status).toBe(401);
  });

  test("a malformed Authorization header is a 401 that says what is expected", async () => {
    const response = await t.api.get("/users/me", { headers: { authorization: "Token abc" } });
    expect(response.status).toBe(401);
    expect(response.body.detail).toContain("Bearer");
  });

  test("a deactivated or deleted user's valid token stops working at once", async () => {
    const { token, user } = await createUser(t);
    expect((await t.api.get("/users/me", { token })).status).toBe(200);
    await t.orm.em.fork().nativeUpdate(User, { id: user.id }, { isActive: false });
    expect((await t.api.get("/users/me", { token })).status).toBe(401);
    await t.orm.em.fork().nativeDelete(User, { id: user.id });
    expect((await t.api.get("/users/me", { token })).status).toBe(401);
  });

  test("a demotion takes effect on the very next request, whatever the token says", async () => {
    const { token, user } = await createUser(t, { role: "root" });
    expect((await t.api.get("/admin/users", { token })).status).toBe(200);
    await t.orm.em.fork().nativeUpdate(User, { id: user.id }, { role: "user" });
    const response = await t.api.get("/admin/users", { token });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ detail: "site root Permission Denied." });
  });

  test("the bearer header wins over cookies", async () => {
    const alice = await createUser(t);
    const bob = await createUser(t);
    const response = await t.api.get("/users/me", { token: alice.token, cookie: `access_token=${bob.token}` });
    expect(response.body.data.id).toBe(alice.user.id);
  });
});

describe("CSRF double submit (production mode)", () => {
  async function session() {
    const { user, password } = await createUser(csrf);
    const login = await csrf.api.post(
      "/auth/login?responseType=json",
      { username: user.username, password },
      { form: true },
    );
    const cookies = setCookies(login);
    const csrfValue = cookies.csrf_access_token.split(";")[0].split("=")[1];
    return { cookie: cookieHeader(login), csrfValue, token: login.body.data.accessToken as string, cookies };
  }
  const patchMe = (options: object) => csrf.api.patch("/users/me", { gravatar: "g" }, options);

  test("cookies are Secure, and readable csrf_* cookies hold the tokens' csrf claims", async () => {
    const { cookies, csrfValue, token } = await session();
    expect(cookies.access_token).toContain("Secure");
    expect(cookies.access_token).toContain("HttpOnly");
    expect(cookies.csrf_access_token).not.toContain("HttpOnly");
    expect(cookies.csrf_refresh_token).toBeDefined();
    expect(JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).csrf).toBe(csrfValue);
  });

  test("a cookie-authenticated write without the header or a same-origin proof is refused", async () => {
    const { cookie } = await session();
    const response = await patchMe({ cookie });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: "Missing CSRF Token" });
  });

  test("a cross-site Origin is refused, a wrong token too", async () => {
    const { cookie, csrfValue } = await session();
    expect((await patchMe({ cookie, headers: { origin: "https://evil.example.com" } })).status).toBe(401);
    const mismatch = await patchMe({ cookie, headers: { "x-csrf-token": `${csrfValue}x` } });
    expect(mismatch.body).toEqual({ detail: "CSRF double submit tokens do not match" });
  });

  test("a cross-site POST cannot log a user out; the front end's own can", async () => {
    const { cookie, csrfValue } = await session();
    const forged = await csrf.api.post("/auth/logout?responseType=json", undefined, {
      cookie,
      headers: { origin: "https://evil.example.com" },
    });
    expect(forged.status).toBe(401);
    expect(setCookies(forged)).toEqual({});
    const own = await csrf.api.post("/auth/logout?responseType=json", undefined, {
      cookie,
      headers: { "x-csrf-token": csrfValue },
    });
    expect(own.body.errorCode).toBe("Success");
  });

  test("the matching header, a same-origin Origin or Sec-Fetch-Site: same-origin pass", async () => {
    const { cookie, csrfValue } = await session();
    expect((await patchMe({ cookie, headers: { "x-csrf-token": csrfValue } })).body.errorCode).toBe("Success");
    expect((await patchMe({ cookie, headers: { origin: "https://joj.example.edu" } })).body.errorCode).toBe("Success");
    expect((await patchMe({ cookie, headers: { "sec-fetch-site": "same-origin" } })).body.errorCode).toBe("Success");
  });

  test("reads need no token, and bearer requests are exempt", async () => {
    const { cookie, token } = await session();
    expect((await csrf.api.get("/users/me", { cookie })).status).toBe(200);
    expect((await patchMe({ token })).body.errorCode).toBe("Success");
  });

  test("a refresh by cookie needs the refresh token's csrf value", async () => {
    const { cookie, cookies } = await session();
    expect((await csrf.api.post("/auth/refresh?responseType=json", undefined, { cookie })).status).toBe(401);
    const refreshCsrf = cookies.csrf_refresh_token.split(";")[0].split("=")[1];
    const ok = await csrf.api.post("/auth/refresh?responseType=json", undefined, {
      cookie,
      headers: { "x-csrf-token": refreshCsrf },
    });
    expect(ok.body.errorCode).toBe("Success");
  });

  test("with protection off (development), cookie writes pass without a header", async () => {
    const { user, password } = await createUser(t);
    const login = await t.api.post(
      "/auth/login?responseType=json",
      { username: user.username, password },
      { form: true },
    );
    expect(setCookies(login).csrf_access_token).toBeUndefined();
    const response = await t.api.patch("/users/me", { gravatar: "g" }, { cookie: cookieHeader(login) });
    expect(response.body.errorCode).toBe("Success");
  });
});
