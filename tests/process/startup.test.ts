import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../helpers/database";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../helpers/spawn-app";

const ROOT = join(import.meta.dir, "../..");
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

function baseEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATA_DIR: "/tmp/joj-test-data",
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    SHUTDOWN_TIMEOUT_MS: "5000",
    ...extra,
  };
}

async function runToExit(entry: string, env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, entry], { cwd: ROOT, env: baseEnv(env), stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, output: stdout + stderr };
}

describe("start-up errors name what to fix", () => {
  test("a judge given the server's secrets refuses to start, naming them (and takes no work)", async () => {
    const { code, output } = await runToExit("workers/judge.ts", {
      JUDGER_ACCESS_KEY_ID: "judger-key-id",
      JUDGER_SECRET_ACCESS_KEY: "judger-secret",
      METRICS_TOKEN: "m".repeat(20),
    });
    expect(code).toBe(1);
    expect(output).toContain(
      "the judge's environment holds the server's secrets (DATABASE_URL, JWT_SECRET, METRICS_TOKEN)",
    );
    expect(output).not.toContain(TEST_JWT_SECRET);
  });

  test("production without JWT_SECRET", async () => {
    const { code, output } = await runToExit("src/main.ts", { MODE: "production", JWT_SECRET: "" });
    expect(code).toBe(1);
    expect(output).toContain("JWT_SECRET is required in production");
  });

  test("an invalid PORT", async () => {
    const { code, output } = await runToExit("src/main.ts", { PORT: "eighty" });
    expect(code).toBe(1);
    expect(output).toContain("PORT must be a whole number");
  });

  test("PostgreSQL unreachable, with the password hidden", async () => {
    const { code, output } = await runToExit("src/main.ts", { DATABASE_URL: "postgres://joj:hunter2@127.0.0.1:1/joj" });
    expect(code).toBe(1);
    expect(output).toContain("cannot connect to PostgreSQL");
    expect(output).toContain("DATABASE_URL");
    expect(output).not.toContain("hunter2");
  });

  test("Redis unreachable", async () => {
    const { code, output } = await runToExit("src/main.ts", { REDIS_URL: "redis://127.0.0.1:1" });
    expect(code).toBe(1);
    expect(output).toContain("cannot connect to Redis");
    expect(output).toContain("REDIS_URL");
  });

  test("a worker without DATABASE_URL", async () => {
    const { code, output } = await runToExit("workers/configs.ts", { DATABASE_URL: "" });
    expect(code).toBe(1);
    expect(output).toContain("DATABASE_URL is not set");
  });
});

describe("graceful shutdown", () => {
  test.each([
    ["src/main.ts", "api listening"],
    ["workers/configs.ts", "worker ready"],
  ])("%s stops cleanly on SIGTERM", async (entry, readyLine) => {
    const port = String(35000 + Math.floor(Math.random() * 5000));
    const child = Bun.spawn([process.execPath, entry], {
      cwd: ROOT,
      env: baseEnv({ PORT: port, HOST: "127.0.0.1" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let output = "";
    const deadline = Date.now() + 15_000;
    while (!output.includes(readyLine) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    expect(output).toContain(readyLine);
    if (entry === "src/main.ts") expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    const code = await child.exited;
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(output).toContain('"msg":"shutting down"');
    expect(output).toContain('"msg":"stopped"');
  });
});

describe("bun run start's children", () => {
  test("when `bun run start` is SIGKILLed (no chance to stop them), its workers notice and stop on their own", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "joj-orphans-"));
    chmodSync(scratch, 0o711);
    const port = String(38000 + Math.floor(Math.random() * 2000));
    const child = Bun.spawn([process.execPath, "src/start.ts"], {
      cwd: ROOT,
      env: baseEnv({
        PORT: port,
        HOST: "127.0.0.1",
        DATA_DIR: join(scratch, "data"),
        QUEUE_PREFIX: `joj-orphans-${port}`,
        JUDGE_WORK_DIR: join(scratch, "work"),
        JUDGE_CACHE_DIR: join(scratch, "cache"),
        JUDGE_SLOT_UID_BASE: "64000",
        JUDGE_CONCURRENCY: "1",
      }),
      stdout: "pipe",
      stderr: "pipe",
    });
    let output = "";
    const reader = child.stdout.getReader();
    const deadline = Date.now() + 60_000;
    while (!output.includes('"msg":"judge ready"') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    const lines = output.split("\n").flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: string; pid?: number }];
      } catch {
        return [];
      }
    });
    const pids = lines.filter((line) => line.msg === "child started").map((line) => Number(line.pid));
    expect(pids).toHaveLength(2);
    child.kill("SIGKILL");
    await child.exited;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 300 && pids.some(alive); i++) await Bun.sleep(50);
    expect(pids.filter(alive)).toEqual([]);
    // The judge's sandbox may take a moment after the judge to let its slot's mounts go (EBUSY once in CI):
    // waited for, bounded; a mount left for good still fails here.
    for (let tries = 0; ; tries++) {
      try {
        rmSync(scratch, { recursive: true, force: true });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EBUSY" || tries >= 40) throw error;
        await Bun.sleep(50);
      }
    }
  }, 90_000);
});
