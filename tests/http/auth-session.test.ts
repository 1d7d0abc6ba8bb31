import { User } from "../../src/modules/users/user.entity";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { countUsers, createUser } from "../helpers/factories";
import { cookieHeader, setCookies } from "../helpers/http-client";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp({ ALLOWED_REDIRECT_ORIGINS: "https://joj.example.edu" });
});
afterAll(() => t.close());

const decode = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

async function loginCookies(): Promise<{ cookie: string; userId: string }> {
  const { user, password } = await createUser(t);
  const login = await t.api.post(
    "/auth/login?responseType=json",
    { username: user.username, password },
    { form: true },
  );
  return { cookie: cookieHeader(login), userId: user.id };
}

describe("GET /auth/token", () => {
  test("with session cookies it returns both tokens and sets them again", async () => {
    const { cookie } = await loginCookies();
    const response = await t.api.get("/auth/token?responseType=json", { cookie });
    expect(response.body.errorCode).toBe("Success");
    expect(response.body.data.accessToken).not.toBe("");
    expect(response.body.data.refreshToken).not.toBe("");
    expect(Object.keys(setCookies(response)).sort()).toEqual(["access_token", "refresh_token"]);
  });

  test("a header token is echoed as access or refresh token, whichever it is", async () => {
    const { token, refreshToken } = await createUser(t);
    const access = await t.api.get("/auth/token?responseType=json&cookie=false", { token });
    expect(access.body.data).toEqual({ accessToken: token, refreshToken: "", tokenType: "bearer" });
    const refresh = await t.api.get("/auth/token?responseType=json&cookie=false", { token: refreshToken });
    expect(refresh.body.data).toEqual({ accessToken: "", refreshToken, tokenType: "bearer" });
  });

  test("without tokens (or with junk) it succeeds with empty strings and sets no cookie", async () => {
    for (const options of [{}, { token: "junk" }, { cookie: "access_token=junk; refresh_token=junk" }]) {
      const response = await t.api.get("/auth/token?responseType=json", options);
      expect(response.body).toEqual({
        errorCode: "Success",
        errorMsg: null,
        data: { accessToken: "", refreshToken: "", tokenType: "bearer" },
      });
      expect(setCookies(response)).toEqual({});
    }
  });

  test("the Python client's snake_case and True/False query spellings work", async () => {
    const { token } = await createUser(t);
    const response = await t.api.get("/auth/token?response_type=json&cookie=False", {
      token,
      headers: { "content-type": "application/json" },
    });
    expect(response.body.data.accessToken).toBe(token);
    expect(setCookies(response)).toEqual({});
  });
});

describe("POST /auth/refresh", () => {
  test("a refresh token in the header gives new tokens with fresh: false and the current profile", async () => {
    const { user, refreshToken } = await createUser(t);
    const em = t.orm.em.fork();
    await em.nativeUpdate(User, { id: user.id }, { realName: "Renamed Person" });
    const response = await t.api.post("/auth/refresh?responseType=json&cookie=false", undefined, {
      token: refreshToken,
      headers: { "content-type": "application/json" },
    });
    expect(response.body.errorCode).toBe("Success");
    const claims = decode(response.body.data.accessToken);
    expect(claims).toMatchObject({ sub: user.id, fresh: false, category: "user", real_name: "Renamed Person" });
    expect(response.body.data.refreshToken).not.toBe(refreshToken);
  });

  test("a refresh cookie works and the cookies are renewed", async () => {
    const { cookie } = await loginCookies();
    const response = await t.api.post("/auth/refresh?responseType=json", undefined, { cookie });
    expect(response.body.errorCode).toBe("Success");
    expect(Object.keys(setCookies(response)).sort()).toEqual(["access_token", "refresh_token"]);
  });

  test("an access token, a forged token or no token is refused with 401", async () => {
    const { token } = await createUser(t);
    for (const options of [{ token }, { token: "a.b.c" }, {}]) {
      const response = await t.api.post("/auth/refresh?responseType=json", undefined, options);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: "JWT Format Error" });
    }
  });

  test("a deactivated user cannot refresh", async () => {
    const { user, refreshToken } = await createUser(t);
    await t.orm.em.fork().nativeUpdate(User, { id: user.id }, { isActive: false });
    const response = await t.api.post("/auth/refresh?responseType=json", undefined, { token: refreshToken });
    expect(response.status).toBe(401);
  });
});

describe("POST /auth/logout", () => {
  test("needs a session (Horse's rule): anonymous is a 401 that clears nothing", async () => {
    const response = await t.api.post("/auth/logout?responseType=json");
    expect(response.status).toBe(401);
    expect(setCookies(response)).toEqual({});
  });

  test("deletes every session cookie, for a cookie or a bearer session", async () => {
    const { cookie } = await loginCookies();
    const { token } = await createUser(t);
    for (const options of [{ cookie }, { token }]) {
      const response = await t.api.post("/auth/logout?responseType=json", undefined, options);
      expect(response.body).toEqual({ errorCode: "Success", errorMsg: null, data: {} });
      const cookies = setCookies(response);
      for (const name of ["access_token", "refresh_token", "csrf_access_token", "csrf_refresh_token"]) {
        expect(cookies[name]).toContain("Max-Age=0");
      }
    }
  });

  test("cookie=false leaves cookies alone", async () => {
    const { token } = await createUser(t);
    const response = await t.api.post("/auth/logout?responseType=json&cookie=false", undefined, { token });
    expect(setCookies(response)).toEqual({});
  });
});

describe("responseType=redirect", () => {
  test("redirects with 302 to the server's own origin by default, after setting cookies", async () => {
    const { user, password } = await createUser(t);
    const response = await t.api.post(
      "/auth/login?responseType=redirect",
      { username: user.username, password },
      { form: true },
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://localhost:34765/");
    expect(setCookies(response).access_token).toBeDefined();
  });

  test("same-origin paths and allowlisted origins are followed", async () => {
    const { token } = await createUser(t);
    const relative = await t.api.post(
      "/auth/logout?responseType=redirect&redirectUrl=/login%3Fnext%3D%2Fhome",
      undefined,
      { token },
    );
    expect(relative.headers.get("location")).toBe("http://localhost:34765/login?next=/home");
    const listed = await t.api.post(
      "/auth/logout?responseType=redirect&redirect_url=https://joj.example.edu/after",
      undefined,
      { token },
    );
    expect(listed.status).toBe(302);
    expect(listed.headers.get("location")).toBe("https://joj.example.edu/after");
  });

  test.each([
    "https://evil.example.com/",
    "//evil.example.com/x",
    "javascript:alert(1)",
    "http://localhost:34765.evil.com/",
  ])("any other target (%s) is a 422 and the request changes nothing", async (target) => {
    const before = await countUsers(t);
    const response = await t.api.post(
      `/auth/register?responseType=redirect&redirectUrl=${encodeURIComponent(target)}`,
      { username: "redirected", email: "redirected@example.edu", password: "pw" },
    );
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["query", "redirectUrl"]);
    expect(response.headers.get("location")).toBeNull();
    expect(setCookies(response)).toEqual({});
    expect(await countUsers(t)).toBe(before);
  });
});
