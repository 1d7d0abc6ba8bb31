import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type Logger } from "../../src/core/logger";
import { StartupError } from "../../src/core/startup";
import { startEmbeddedPostgres } from "../../src/runtime/embedded-postgres";
import { redisForStart } from "../../src/runtime/local-redis";
import { createTestDatabase } from "../helpers/database";
import { freePort } from "../helpers/ports";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../helpers/spawn-app";

// A port refused for a moment (Horse's 34765 is in the kernel's ephemeral range) is tried again; a port held
// for good fails the start with a message naming the holder and the setting that moves the port. Each
// holder here lets go when the server under test says it is retrying, not after some time.
const ROOT = join(import.meta.dir, "../..");
const RETRYING = "port in use, retrying";
const scratch = mkdtempSync(join(tmpdir(), "joj-busy-port-"));
// As first-run.test.ts: the embedded PostgreSQL's own user (when run as root) must reach its directory.
chmodSync(scratch, 0o711);
let database: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A listener in this process that accepts connections and never answers (not a Redis, not PostgreSQL). */
const hold = (port: number) => Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });

/** Starts the API on `port`; `output.until(text)` reads its output until `text` came, or the output ended. */
function startApi(port: number) {
  const child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: join(scratch, "api-data"),
      JWT_SECRET: TEST_JWT_SECRET,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `joj-busy-port-${randomUUID()}`,
      HOST: "127.0.0.1",
      PORT: String(port),
      SHUTDOWN_TIMEOUT_MS: "5000",
      SHUTDOWN_DRAIN_MS: "0",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += new TextDecoder().decode(chunk);
  };
  let ended = false;
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]).then(() => {
    ended = true;
  });
  const until = async (wanted: string): Promise<boolean> => {
    while (!text.includes(wanted)) {
      if (ended) return false;
      await Promise.race([drained, Bun.sleep(20)]);
    }
    return true;
  };
  return { child, until, text: () => text };
}

async function stop(child: Subprocess) {
  if (child.exitCode === null) child.kill("SIGTERM");
  return child.exited;
}

describe("the API on a busy port", () => {
  test("a port held a moment: the API retries and starts once it is free", async () => {
    const port = await freePort();
    const holder = hold(port);
    const api = startApi(port);
    try {
      const retried = await api.until(RETRYING);
      holder.stop(true);
      expect(retried ? "" : api.text()).toBe("");
      expect(await api.until('"msg":"api listening"')).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(await stop(api.child)).toBe(0);
    } finally {
      holder.stop(true);
      await stop(api.child);
    }
  }, 30_000);

  test("a port held for good: the start fails naming the holder's pid and command, and PORT", async () => {
    const port = await freePort();
    const script = `Bun.listen({ hostname: "127.0.0.1", port: ${port}, socket: { data() {} } }); console.log(1)`;
    const holder = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    const api = startApi(port);
    try {
      expect((await holder.stdout.getReader().read()).value).toBeDefined();
      expect(await api.child.exited).toBe(1);
      expect(await api.until("start-up failed")).toBe(true);
      const holderShown = `pid ${holder.pid} (${readFileSync(`/proc/${holder.pid}/comm`, "utf8").trim()}: `;
      expect(api.text()).toContain(`the API cannot listen on 127.0.0.1:${port}: the port is in use by ${holderShown}`);
      expect(api.text()).toContain(`-e ${script})`);
      expect(api.text()).toContain("set PORT to another port");
      expect(api.text()).not.toContain("Is port");
    } finally {
      holder.kill("SIGKILL");
      await stop(api.child);
    }
  }, 30_000);
});

describe("bun run start's own servers on a busy port", () => {
  /** A logger whose lines are kept, calling `onRetry` when the server under test says it retries. */
  function capture(onRetry: () => void): { logger: Logger; lines: string[] } {
    const lines: string[] = [];
    const logger = createLogger("debug", {}, (line) => {
      lines.push(line);
      if (line.includes(RETRYING)) onRetry();
    });
    return { logger, lines };
  }

  test("the local redis-server: retried while the port is held a moment, then started", async () => {
    const port = await freePort();
    const holder = hold(port);
    const { logger, lines } = capture(() => holder.stop(true));
    const dataDir = join(scratch, "redis-moment");
    const redis = await redisForStart({ redisUrlDefaulted: true, redisUrl: "", dataDir }, logger, {
      LOCAL_REDIS_PORT: String(port),
    }).finally(() => holder.stop(true));
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${port}`);
      expect(lines.some((line) => line.includes(RETRYING))).toBe(true);
      expect(redis.stop).toBeDefined();
    } finally {
      await redis.stop?.();
    }
  }, 30_000);

  test("the local redis-server: a port held for good names this process and LOCAL_REDIS_PORT", async () => {
    const port = await freePort();
    const holder = hold(port);
    const { logger } = capture(() => {});
    const dataDir = join(scratch, "redis-held");
    try {
      const failure = await redisForStart({ redisUrlDefaulted: true, redisUrl: "", dataDir }, logger, {
        LOCAL_REDIS_PORT: String(port),
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StartupError);
      expect((failure as Error).message).toContain(
        `the local redis-server cannot listen on 127.0.0.1:${port}: the port is in use by pid ${process.pid} (`,
      );
      expect((failure as Error).message).toContain("set LOCAL_REDIS_PORT to another port");
    } finally {
      holder.stop(true);
    }
  }, 30_000);

  test("the embedded PostgreSQL: retried while held a moment; held for good, its setting named", async () => {
    const dataDir = join(scratch, "postgres");
    const port = await freePort();
    const moment = hold(port);
    const first = capture(() => moment.stop(true));
    const pg = await startEmbeddedPostgres({ dataDir, port, logger: first.logger }).finally(() => moment.stop(true));
    await pg.stop();
    expect(first.lines.some((line) => line.includes(RETRYING))).toBe(true);

    const held = hold(port);
    try {
      const failure = await startEmbeddedPostgres({ dataDir, port, logger: capture(() => {}).logger }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(StartupError);
      expect((failure as Error).message).toContain(
        `the embedded PostgreSQL cannot listen on 127.0.0.1:${port}: the port is in use by pid ${process.pid} (`,
      );
      expect((failure as Error).message).toContain("set EMBEDDED_POSTGRES_PORT to another port");
    } finally {
      held.stop(true);
    }
  }, 90_000);
});
