import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { realisticPerson } from "../fixtures/names";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { Browser } from "../helpers/browser";
import { startOidcProvider, type TestAccount } from "../helpers/oidc-provider";

// The whole OAuth2 / OpenID Connect login against a real provider on loopback, driven like a browser:
// authorize → provider → callback → token → register → login again.
const PUBLIC = "http://localhost:34765";
const AFTER = `${PUBLIC}/after-login`;
let t: TestApp;
let oidc: Awaited<ReturnType<typeof startOidcProvider>>;

beforeAll(async () => {
  oidc = await startOidcProvider({
    clientId: "joj",
    clientSecret: "oidc-client-secret",
    redirectUri: `${PUBLIC}/api/v1/auth/oauth2/oidc/callback`,
  });
  t = await spawnApp({
    PUBLIC_URL: PUBLIC,
    OAUTH_OIDC_ISSUER: oidc.issuer,
    OAUTH_OIDC_ID: "joj",
    OAUTH_OIDC_SECRET: "oidc-client-secret",
    OAUTH_OIDC_DISPLAY_NAME: "Campus SSO",
    OAUTH_OIDC_ICON: "https://sso.example.edu/icon.svg",
  });
  await createUser(t); // the site root: users registering by OAuth below are ordinary users
});
afterAll(async () => {
  await t.close();
  await oidc.stop();
});

// Provider accounts with the names real users have (Chinese, accented, with p and C).
const account = (): TestAccount => {
  const person = realisticPerson();
  return {
    sub: `acct-${randomUUID()}`,
    email: person.email,
    preferred_username: person.username,
    name: "Ada Lovelace",
  };
};
const decode = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

/** Starts a login in a fresh browser and follows it until the provider sends the browser back to the app. */
async function startLogin(who: TestAccount | "deny") {
  oidc.control.next = who;
  const browser = new Browser(t);
  const start = await browser.get(
    `${PUBLIC}/api/v1/auth/oauth2/oidc/authorize?responseType=redirect&redirectUrl=${encodeURIComponent(AFTER)}`,
  );
  expect(start.status).toBe(302);
  const { url: callback } = await browser.follow(
    start.headers.get("location")!,
    `${PUBLIC}/api/v1/auth/oauth2/oidc/callback`,
  );
  return { browser, callback };
}

/** The callback, then what `GET /auth/token` says the browser now holds. */
async function finish(browser: Browser, callback: string) {
  const landed = await browser.get(callback);
  const token = await browser.get(`${PUBLIC}/api/v1/auth/token?responseType=json`);
  const body = (await token.json()) as { data: { accessToken: string; refreshToken: string } };
  return { landed, tokens: body.data, claims: body.data.accessToken ? decode(body.data.accessToken) : null };
}

const register = (token: string, body: object) => t.api.post("/auth/register?responseType=json", body, { token });

describe("the provider list and the authorize step", () => {
  test("GET /auth/oauth2 lists the enabled services", async () => {
    const list = await t.api.get("/auth/oauth2");
    expect(list.body).toEqual({
      errorCode: "Success",
      errorMsg: null,
      data: {
        count: 1,
        results: [{ oauthName: "oidc", displayName: "Campus SSO", icon: "https://sso.example.edu/icon.svg" }],
      },
    });
  });

  test("authorize answers the provider URL with PKCE and a nonce, and binds the login to the browser", async () => {
    const response = await t.api.get("/auth/oauth2/oidc/authorize?responseType=json&scopes=phone");
    const url = new URL(response.body.data.redirectUrl);
    expect(url.origin).toBe(oidc.issuer);
    expect(url.searchParams.get("redirect_uri")).toBe(`${PUBLIC}/api/v1/auth/oauth2/oidc/callback`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("scope")!.split(" ")).toEqual(
      expect.arrayContaining(["openid", "email", "profile", "phone"]),
    );
    expect(url.searchParams.get("nonce")).toBeTruthy();
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("oauth2_state="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Path=/api/v1/auth/oauth2");
    // The state cookie holds the state the provider will echo; it is no access token.
    const state = decode(cookie.split(";")[0].slice("oauth2_state=".length));
    expect(state).toMatchObject({ type: "oauth_state", state: url.searchParams.get("state") });
    expect((await t.api.get("/users/me", { token: cookie.split(";")[0].slice("oauth2_state=".length) })).status).toBe(
      401,
    );
  });

  test("an unknown service, a missing responseType and an off-site redirect are refused", async () => {
    expect((await t.api.get("/auth/oauth2/github/authorize?responseType=json")).status).toBe(400);
    expect((await t.api.get("/auth/oauth2/oidc/authorize")).status).toBe(422);
    expect(
      (await t.api.get("/auth/oauth2/oidc/authorize?responseType=redirect&redirectUrl=https://evil.example/")).status,
    ).toBe(422);
  });
});

describe("logging in", () => {
  test("a new account: oauth token → register (provider's name and e-mail) → user session; the next login is linked", async () => {
    const who = account();
    const { browser, callback } = await startLogin(who);
    const first = await finish(browser, callback);
    expect(first.landed.status).toBe(302);
    expect(first.landed.headers.get("location")).toBe(AFTER);
    expect(first.claims).toMatchObject({
      category: "oauth",
      sub: who.sub,
      username: who.preferred_username,
      email: who.email,
      real_name: "Ada Lovelace",
      role: null,
      oauth_name: "oidc",
    });
    expect(first.tokens.refreshToken).toBe("");

    const registered = await register(first.tokens.accessToken, { oauth_name: "oidc", oauth_account_id: who.sub });
    expect(registered.body.errorCode).toBe("Success");
    const session = decode(registered.body.data.accessToken);
    expect(session).toMatchObject({
      category: "user",
      username: who.preferred_username,
      email: who.email,
      oauth_name: "oidc",
      role: "user",
    });
    const me = await t.api.get("/users/me", { token: registered.body.data.accessToken });
    expect(me.body.data).toMatchObject({ id: session.sub, username: who.preferred_username });
    // No password yet: password login is impossible until one is set, and setting a first one works.
    expect(
      (
        await t.api.post(
          "/auth/login?responseType=json",
          { username: who.preferred_username, password: "" },
          { form: true },
        )
      ).body.errorCode,
    ).not.toBe("Success");
    expect(
      (
        await t.api.patch(
          "/users/me/password",
          { newPassword: "correct horse" },
          { token: registered.body.data.accessToken },
        )
      ).body.errorCode,
    ).toBe("Success");
    expect(
      (
        await t.api.post(
          "/auth/login?responseType=json",
          { username: who.preferred_username, password: "correct horse" },
          { form: true },
        )
      ).body.errorCode,
    ).toBe("Success");

    const again = await startLogin(who);
    const second = await finish(again.browser, again.callback);
    expect(second.claims).toMatchObject({ category: "user", sub: session.sub, oauth_name: "oidc" });
    expect(second.tokens.refreshToken).not.toBe("");
    // The same account cannot register twice.
    expect(
      (await register(first.tokens.accessToken, { oauth_name: "oidc", oauth_account_id: who.sub })).body.errorMsg,
    ).toContain("already registered");
  });

  test("a forged state, a replayed callback and a missing state cookie fail without logging anyone in", async () => {
    const { browser, callback } = await startLogin(account());
    const forged = new URL(callback);
    forged.searchParams.set("state", "forged");
    const stateCookie = browser.cookie(PUBLIC, "oauth2_state")!;
    const bad = await finish(browser, forged.toString());
    expect(bad.claims).toMatchObject({ category: "", sub: "" });
    // The pending login is gone with the cookie: the genuine callback now has nothing to match.
    expect((await browser.get(callback)).status).toBe(400);
    // Replaying the genuine callback with the old cookie (say, an attacker who saw both) fails too.
    const replayer = new Browser(t);
    replayer.jar(PUBLIC).set("oauth2_state", stateCookie);
    expect((await finish(replayer, callback)).claims).toMatchObject({ category: "" });

    const twice = await startLogin(account());
    const kept = twice.browser.cookie(PUBLIC, "oauth2_state")!;
    expect((await finish(twice.browser, twice.callback)).claims.category).toBe("oauth");
    const again = new Browser(t);
    again.jar(PUBLIC).set("oauth2_state", kept);
    expect((await finish(again, twice.callback)).claims).toMatchObject({ category: "" });
  });

  test("a wrong PKCE verifier is refused by the provider: the login fails", async () => {
    const { browser, callback } = await startLogin(account());
    const state = decode(browser.cookie(PUBLIC, "oauth2_state")!);
    browser.jar(PUBLIC).set("oauth2_state", await t.codec.sign({ ...state, verifier: "x".repeat(64) }));
    expect((await finish(browser, callback)).claims).toMatchObject({ category: "", oauth_name: "oidc" });
  });

  test("the provider refusing (the user said no) ends in a failed login, not an error page", async () => {
    const { browser, callback } = await startLogin("deny");
    expect(new URL(callback).searchParams.get("error")).toBe("access_denied");
    const result = await finish(browser, callback);
    expect(result.landed.status).toBe(302);
    expect(result.claims).toMatchObject({ category: "" });
  });
});

describe("registering by OAuth", () => {
  async function oauthToken(who: TestAccount) {
    const { browser, callback } = await startLogin(who);
    return (await finish(browser, callback)).tokens.accessToken;
  }

  test("a provider's username that is no valid name here asks for one; a chosen name registers", async () => {
    const who = { ...account(), preferred_username: "bidi\u202eevil" };
    const token = await oauthToken(who);
    const refused = await register(token, { oauth_name: "oidc", oauth_account_id: who.sub });
    expect(refused.body).toMatchObject({ errorCode: "UserRegisterError" });
    expect(refused.body.errorMsg).toContain("choose a username");
    const chosen = await register(token, {
      oauth_name: "oidc",
      oauth_account_id: who.sub,
      username: "Ελένη Παπαδοπούλου",
    });
    expect(chosen.body.errorCode).toBe("Success");
    expect(decode(chosen.body.data.accessToken).username).toBe("Ελένη Παπαδοπούλου");
  });

  test("a taken username asks for another; an e-mail of an existing account says to log in there", async () => {
    const taken = await createUser(t);
    const who = { ...account(), preferred_username: taken.user.username };
    const token = await oauthToken(who);
    const clash = await register(token, { oauth_name: "oidc", oauth_account_id: who.sub });
    expect(clash.body).toMatchObject({ errorCode: "UserRegisterError", errorMsg: "username is already taken" });
    const chosen = await register(token, {
      oauth_name: "oidc",
      oauth_account_id: who.sub,
      username: `${who.preferred_username}-2`,
      password: "pw",
    });
    expect(chosen.body.errorCode).toBe("Success");

    const existing = await createUser(t);
    const twin = { ...account(), email: existing.user.email };
    const emailClash = await register(await oauthToken(twin), { oauth_name: "oidc", oauth_account_id: twin.sub });
    expect(emailClash.body.errorCode).toBe("UserRegisterError");
    expect(emailClash.body.errorMsg).toContain("email is already registered");
  });

  test("the oauth token must match the form, and is needed at all", async () => {
    const who = account();
    const token = await oauthToken(who);
    expect((await register(token, { oauth_name: "oidc", oauth_account_id: "someone-else" })).body.errorMsg).toContain(
      "oauth account not matched",
    );
    expect((await register(token, { oauth_name: "github", oauth_account_id: who.sub })).body.errorMsg).toContain(
      "oauth account not matched",
    );
    expect(
      (await t.api.post("/auth/register?responseType=json", { oauth_name: "oidc", oauth_account_id: who.sub })).body
        .errorMsg,
    ).toContain("log in with the OAuth service first");
    const user = await createUser(t);
    expect((await register(user.token, { oauth_name: "oidc", oauth_account_id: who.sub })).body.errorMsg).toContain(
      "log in with the OAuth service first",
    );
  });

  test("an oauth token is not a login anywhere else, and never refreshes into one", async () => {
    const token = await oauthToken(account());
    for (const path of ["/users/me", "/domains", "/jwt_decoded", "/problem_groups"])
      expect((await t.api.get(path, { token })).status).toBe(401);
    expect((await t.api.post("/auth/refresh?responseType=json", undefined, { token })).status).toBe(401);
    expect((await t.api.get("/auth/token?responseType=json", { token })).body.data).toMatchObject({
      accessToken: token,
      refreshToken: "",
    });
  });
});
