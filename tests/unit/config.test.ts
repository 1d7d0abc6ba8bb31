import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/settings/config";
import { ConfigError } from "../../src/core/env-reader";

const strongSecret = `${"a".repeat(16) + "b".repeat(16)}c`;

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe("loadConfig", () => {
  test("defaults: Horse's port, development mode, local Redis, 14-day access and 30-day refresh tokens", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "joj-config-"));
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.port).toBe(34765);
    expect(config.mode).toBe("development");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.redisUrlDefaulted).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.accessTokenTtlSeconds).toBe(14 * 24 * 3600);
    expect(config.refreshTokenTtlSeconds).toBe(30 * 24 * 3600);
    expect(config.csrfProtection).toBe(false);
    expect(config.publicUrl).toBe("http://localhost:34765");
  });

  test("pool sizes: 10 for an API, 4 for a worker, the read pool as large as the ORM's unless set", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "joj-config-"));
    expect(loadConfig({ DATA_DIR: dataDir }).database).toEqual({ poolSize: 10, readPoolSize: 10 });
    expect(loadConfig({ DATA_DIR: dataDir }, "worker").database).toEqual({ poolSize: 4, readPoolSize: 4 });
    expect(loadConfig({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: "6" }).database).toEqual({
      poolSize: 6,
      readPoolSize: 6,
    });
    const both = { DATA_DIR: dataDir, DATABASE_POOL_SIZE: "6", DATABASE_READ_POOL_SIZE: "2" };
    expect(loadConfig(both).database).toEqual({ poolSize: 6, readPoolSize: 2 });
    const bad = problemsOf({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: "0", DATABASE_READ_POOL_SIZE: "many" });
    expect(bad.some((p) => p.includes("DATABASE_POOL_SIZE"))).toBe(true);
    expect(bad.some((p) => p.includes("DATABASE_READ_POOL_SIZE"))).toBe(true);
  });

  test("development without JWT_SECRET generates a random secret once and keeps it", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "joj-config-"));
    const first = loadConfig({ DATA_DIR: dataDir }).jwtSecret;
    expect(first).toHaveLength(64);
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(first);
    expect(readFileSync(join(dataDir, "jwt-secret"), "utf8")).toBe(first);
  });

  test("production requires JWT_SECRET and refuses weak ones, naming the setting", () => {
    expect(problemsOf({ MODE: "production" }).join()).toContain("JWT_SECRET is required in production");
    expect(problemsOf({ MODE: "production", JWT_SECRET: "secret" }).join()).toContain("JWT_SECRET is too weak");
    expect(problemsOf({ MODE: "production", JWT_SECRET: "short-but-random" }).join()).toContain(
      "JWT_SECRET is too weak",
    );
    expect(problemsOf({ MODE: "production", JWT_SECRET: strongSecret })).toEqual([]);
  });

  test("production turns CSRF protection on unless told otherwise", () => {
    expect(loadConfig({ MODE: "production", JWT_SECRET: strongSecret }).csrfProtection).toBe(true);
    expect(loadConfig({ MODE: "production", JWT_SECRET: strongSecret, CSRF_PROTECTION: "false" }).csrfProtection).toBe(
      false,
    );
  });

  test("every bad setting is reported at once, by name", () => {
    const problems = problemsOf({
      PORT: "http",
      MODE: "staging",
      DATABASE_URL: "mysql://x",
      REDIS_URL: "nope",
      LOG_LEVEL: "loud",
      JWT_SECRET: "x",
      ALLOWED_REDIRECT_ORIGINS: "not a url",
      JWT_ACCESS_TTL_SECONDS: "9999999",
      JWT_REFRESH_TTL_SECONDS: "120",
    });
    const text = problems.join("\n");
    for (const name of [
      "PORT",
      "MODE",
      "DATABASE_URL",
      "REDIS_URL",
      "LOG_LEVEL",
      "ALLOWED_REDIRECT_ORIGINS",
      "JWT_REFRESH_TTL_SECONDS",
    ]) {
      expect(text).toContain(name);
    }
  });

  test("origins are normalised: PUBLIC_URL and the redirect allowlist keep only scheme, host and port", () => {
    const config = loadConfig({
      JWT_SECRET: "x",
      PUBLIC_URL: "https://joj.example.edu/some/path",
      ALLOWED_REDIRECT_ORIGINS: "https://a.example.edu/x, http://b.example.edu:8080",
    });
    expect(config.publicUrl).toBe("https://joj.example.edu");
    expect(config.allowedRedirectOrigins).toEqual(["https://a.example.edu", "http://b.example.edu:8080"]);
  });
});
