import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/settings/config";
import { SERVER_WORKER_VARIABLES } from "../../src/settings/secret-settings";
import { childEnv } from "../../src/settings/child-env";
import { JUDGE_VARIABLES, loadJudgeSettings, serverSecretsIn } from "../../src/judge/judge-settings";
import { MACHINE_VARIABLES, pickEnv } from "../../src/core/env-reader";

// The environment of a production API process: every secret the server has, and the judge's settings.
const SERVER_ENV: Record<string, string> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/root",
  LANG: "C.UTF-8",
  MODE: "production",
  JWT_SECRET: "9c1e".repeat(16),
  DATABASE_URL: "postgres://joj:db-password-42@db:5432/joj",
  REDIS_URL: "redis://:redis-pw-77@redis:6379",
  METRICS_TOKEN: "metrics-token-0123456789",
  OAUTH_GITHUB_ID: "Iv1.0123456789",
  OAUTH_GITHUB_SECRET: "gh-secret-abcdef0123456789",
  OAUTH_OIDC_SECRET: "oidc-secret-0123456789",
  STORAGE_DRIVER: "s3",
  S3_BUCKET: "joj",
  S3_ACCESS_KEY_ID: "AKIAEXAMPLE0001",
  S3_SECRET_ACCESS_KEY: "s3-secret-0123456789",
  AWS_SESSION_TOKEN: "aws-session-0123456789",
  PGPASSWORD: "pg-password-0",
  JUDGER_ACCESS_KEY_ID: "judger-key-id-0001",
  JUDGER_SECRET_ACCESS_KEY: "judger-secret-0123456789",
  JUDGE_SERVER_URL: "http://127.0.0.1:34765",
  JUDGE_CONCURRENCY: "2",
  LOG_LEVEL: "info",
  SOMETHING_ADDED_LATER: "unknown to every allow-list",
};
const FORBIDDEN_FOR_THE_JUDGE = [
  "JWT_SECRET",
  "DATABASE_URL",
  "METRICS_TOKEN",
  "OAUTH_GITHUB_SECRET",
  "OAUTH_OIDC_SECRET",
  "S3_SECRET_ACCESS_KEY",
  "S3_ACCESS_KEY_ID",
  "AWS_SESSION_TOKEN",
  "PGPASSWORD",
];

/** The names a loader reads from an environment, recorded through a proxy. */
function namesRead(
  load: (env: Record<string, string | undefined>) => unknown,
  base: Record<string, string> = {},
): Set<string> {
  const read = new Set<string>();
  const env = new Proxy(
    { ...base },
    {
      get: (target, name) => {
        if (typeof name === "string") read.add(name);
        return target[name as string];
      },
      has: (target, name) => {
        if (typeof name === "string") read.add(name);
        return name in target;
      },
    },
  );
  load(env);
  return read;
}

describe("who gets which settings", () => {
  test("the judge gets its own settings and the machine's, none of the server's secrets, nothing unknown", () => {
    const env = childEnv("judge", SERVER_ENV);
    for (const name of FORBIDDEN_FOR_THE_JUDGE) expect(env).not.toHaveProperty(name);
    expect(env).not.toHaveProperty("SOMETHING_ADDED_LATER");
    expect(env).toMatchObject({
      JUDGER_SECRET_ACCESS_KEY: "judger-secret-0123456789",
      REDIS_URL: "redis://:redis-pw-77@redis:6379",
      PATH: SERVER_ENV.PATH,
    });
    expect(serverSecretsIn(env)).toEqual([]);
  });

  test("a judge in HTTP mode does not even get the queue's Redis URL", () => {
    expect(childEnv("judge", { ...SERVER_ENV, JUDGE_MODE: "http" })).not.toHaveProperty("REDIS_URL");
  });

  test("the configs worker gets the database, the queue and the storage, not the API's secrets", () => {
    const env = childEnv("configs", SERVER_ENV);
    expect(env).toMatchObject({
      DATABASE_URL: SERVER_ENV.DATABASE_URL,
      REDIS_URL: SERVER_ENV.REDIS_URL,
      S3_SECRET_ACCESS_KEY: "s3-secret-0123456789",
    });
    for (const name of [
      "JWT_SECRET",
      "METRICS_TOKEN",
      "OAUTH_GITHUB_SECRET",
      "OAUTH_OIDC_SECRET",
      "JUDGER_SECRET_ACCESS_KEY",
      "SOMETHING_ADDED_LATER",
    ]) {
      expect(env).not.toHaveProperty(name);
    }
    // It starts on exactly that: the worker's config needs no JWT secret, even in production.
    expect(() => loadConfig(env, "worker")).not.toThrow();
    expect(loadConfig(env, "worker")).toMatchObject({
      jwtSecret: "",
      metricsToken: null,
      oauth: { github: null, jaccount: null, oidc: null },
    });
  });

  test("redis-server started for a first run gets the machine's variables alone (local-redis.ts)", () => {
    expect(Object.keys(pickEnv(SERVER_ENV, MACHINE_VARIABLES)).sort()).toEqual(["HOME", "LANG", "PATH"]);
  });

  test("every name the judge's settings read is on its allow-list (a new setting cannot be forgotten)", () => {
    const read = namesRead((env) => loadJudgeSettings(env, []), {
      JUDGER_ACCESS_KEY_ID: "k",
      JUDGER_SECRET_ACCESS_KEY: "s",
    });
    const allowed = new Set<string>([...JUDGE_VARIABLES, ...MACHINE_VARIABLES]);
    expect([...read].filter((name) => !allowed.has(name))).toEqual([]);
  });

  test("every name the worker's config reads is on the workers' allow-list", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "joj-child-env-"));
    const read = namesRead((env) => loadConfig(env, "worker"), { DATA_DIR: dataDir });
    const allowed = new Set<string>([...SERVER_WORKER_VARIABLES, ...MACHINE_VARIABLES]);
    expect([...read].filter((name) => !allowed.has(name))).toEqual([]);
  });

  test("serverSecretsIn names the server's secrets found in an environment", () => {
    expect(serverSecretsIn(SERVER_ENV)).toEqual([...FORBIDDEN_FOR_THE_JUDGE].sort());
    expect(
      serverSecretsIn({ JUDGER_SECRET_ACCESS_KEY: "x".repeat(30), REDIS_URL: "redis://:pw@r:6379", JWT_SECRET: "" }),
    ).toEqual([]);
  });
});

test("compose.yaml and the Dockerfile: the judge service gets its own settings only, and reads no .env file", async () => {
  const root = join(import.meta.dir, "../..");
  const compose = Bun.YAML.parse(await Bun.file(join(root, "compose.yaml")).text()) as {
    services: Record<string, { environment?: Record<string, string>; command?: string[] }>;
  };
  const judge = compose.services["worker-judge"];
  expect(serverSecretsIn(judge.environment ?? {})).toEqual([]);
  const allowed = new Set<string>([...JUDGE_VARIABLES, ...MACHINE_VARIABLES]);
  expect(Object.keys(judge.environment ?? {}).filter((name) => !allowed.has(name))).toEqual([]);
  expect(judge.command).toEqual(["bun", "--no-env-file", "workers/judge.ts"]);
  // Only the API signs tokens.
  for (const [name, service] of Object.entries(compose.services)) {
    if (name !== "api") expect(service.environment ?? {}).not.toHaveProperty("JWT_SECRET");
  }
  expect(await Bun.file(join(root, "Dockerfile")).text()).toContain('CMD ["bun", "--no-env-file", "workers/judge.ts"]');
});
