import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/settings/config";
import { ConfigError } from "../../src/core/env-reader";
import { githubProfile } from "../../src/modules/identity/oauth/providers/github";
import { jaccountProfile } from "../../src/modules/identity/oauth/providers/jaccount";
import { oidcProfile } from "../../src/modules/identity/oauth/providers/oidc";
import { enabledProviders } from "../../src/modules/identity/oauth/providers/registry";

// Provider answers of our own making, in the shapes the providers send (trimmed to the fields that matter).
const GITHUB_USER = {
  login: "liwei-sjtu",
  id: 48213907,
  node_id: "U_kgDOAt_liwei",
  avatar_url: "https://avatars.example.invalid/u/48213907",
  type: "User",
  site_admin: false,
  name: "Li Wei",
  company: "SJTU",
  email: null,
  public_repos: 12,
};
const GITHUB_EMAILS = [
  { email: "48213907+liwei-sjtu@users.noreply.github.com", primary: false, verified: true, visibility: null },
  { email: "liwei@sjtu.edu.cn", primary: true, verified: true, visibility: "public" },
];
const JACCOUNT_PROFILE = {
  errno: 0,
  error: "success",
  total: 0,
  entities: [
    {
      id: "a1b2c3d4-0000-4000-8000-jaccount0001",
      account: "zhangsan",
      name: "张三",
      kind: "canvas.profile",
      code: "518370910001",
      userType: "student",
      organize: { name: "密西根学院", id: "03700" },
      email: "",
      timeZone: 0,
      gender: "male",
    },
  ],
};

describe("provider profiles", () => {
  test("GitHub: id and login, the primary verified e-mail (not the public one), the display name", () => {
    expect(githubProfile(GITHUB_USER, GITHUB_EMAILS)).toEqual({
      accountId: "48213907",
      accountName: "liwei-sjtu",
      email: "liwei@sjtu.edu.cn",
      studentId: "",
      realName: "Li Wei",
    });
    expect(() => githubProfile(GITHUB_USER, [{ ...GITHUB_EMAILS[1], verified: false }])).toThrow(
      "no verified primary e-mail",
    );
    expect(() => githubProfile(GITHUB_USER, { message: "Requires authentication" })).toThrow(
      "no verified primary e-mail",
    );
  });

  test("jAccount: the first entity; e-mail <account>@sjtu.edu.cn, student id from code", () => {
    expect(jaccountProfile(JACCOUNT_PROFILE)).toEqual({
      accountId: "a1b2c3d4-0000-4000-8000-jaccount0001",
      accountName: "zhangsan",
      email: "zhangsan@sjtu.edu.cn",
      studentId: "518370910001",
      realName: "张三",
    });
    expect(() => jaccountProfile({ errno: 1, error: "invalid token", entities: [] })).toThrow(
      "did not say who the user is",
    );
  });

  test("OpenID Connect: claims from the verified id token and userinfo; an unverified e-mail is dropped", () => {
    expect(
      oidcProfile(
        { sub: "u-1", iss: "x", aud: "joj" },
        { sub: "u-1", email: "ada@example.edu", email_verified: true, preferred_username: "ada", name: "Ada" },
      ),
    ).toEqual({ accountId: "u-1", accountName: "ada", email: "ada@example.edu", studentId: "", realName: "Ada" });
    expect(oidcProfile({ sub: "u-2" }, { sub: "u-2", email: "bob@example.edu", email_verified: false })).toMatchObject({
      accountName: "u-2",
      email: "",
    });
    expect(oidcProfile({ sub: "u-3", email: "cy@example.edu" })).toMatchObject({
      accountName: "cy",
      email: "cy@example.edu",
    });
    expect(() => oidcProfile({ sub: "u-1" }, { sub: "u-9" })).toThrow("another account");
  });
});

describe("OAuth settings", () => {
  const base = { JWT_SECRET: "x", DATA_DIR: "/tmp/joj-test-data", PUBLIC_URL: "https://joj.example.edu" };

  test("a service is on when its id and secret are set, and its callback comes from PUBLIC_URL", () => {
    const config = loadConfig({
      ...base,
      OAUTH_GITHUB_ID: "gh",
      OAUTH_GITHUB_SECRET: "s",
      OAUTH_JACCOUNT_ID: "ja",
      OAUTH_JACCOUNT_SECRET: "s",
    });
    const providers = enabledProviders(config);
    expect([...providers.keys()]).toEqual(["jaccount", "github"]);
    expect(providers.get("jaccount")).toMatchObject({
      displayName: "JAccount",
      icon: "https://vi.sjtu.edu.cn/img/base/Logo.png",
    });
    expect(
      enabledProviders(loadConfig({ ...base, OAUTH_GITHUB: "false", OAUTH_GITHUB_ID: "gh", OAUTH_GITHUB_SECRET: "s" }))
        .size,
    ).toBe(0);
  });

  test("half a configuration is an error that names what is missing", async () => {
    expect(() => loadConfig({ ...base, OAUTH_GITHUB: "true" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, OAUTH_GITHUB_ID: "gh" })).toThrow(
      "OAUTH_GITHUB_ID and OAUTH_GITHUB_SECRET are both needed",
    );
    expect(() => loadConfig({ ...base, OAUTH_OIDC_ID: "c", OAUTH_OIDC_SECRET: "s" })).toThrow(
      "OAUTH_OIDC_ISSUER is needed",
    );
  });

  test("the GitHub authorize URL asks for user:email and names the registered callback", async () => {
    const github = enabledProviders(
      loadConfig({ ...base, OAUTH_GITHUB_ID: "gh-client", OAUTH_GITHUB_SECRET: "s" }),
    ).get("github")!;
    const url = await github.authorizationUrl({ state: "st", verifier: "v", nonce: "n" }, ["read:org"]);
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: "gh-client",
      state: "st",
      scope: "user:email read:org",
      redirect_uri: "https://joj.example.edu/api/v1/auth/oauth2/github/callback",
    });
  });
});
