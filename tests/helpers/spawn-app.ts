import Redis from "ioredis";
import { closeLiveStreams } from "../../src/modules/record-events/record-events.routes";
import { randomUUID } from "node:crypto";
import { assembleApp, type App } from "../../src/server/app";
import { loadConfig, type Config } from "../../src/settings/config";
import { createLogger, type Logger } from "../../src/core/logger";
import type { Orm } from "../../src/db/orm";
import { createOrm } from "../../src/server/database";
import { createTokenCodec } from "../../src/modules/identity/http/auth.plugin";
import type { TokenCodec } from "../../src/modules/identity/credentials/tokens";
import { createTestDatabase } from "./database";
import { HttpClient } from "./http-client";
import { startConfigsWorker } from "./workers";
import type { JobClient } from "../../src/jobs/job-client";
import type { BlobStore } from "../../src/storage/blob-store";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
export const TEST_JWT_SECRET = "test-secret-that-is-long-enough-for-production-0123456789";

export interface TestApp {
  app: App;
  api: HttpClient;
  config: Config;
  orm: Orm;
  redis: Redis;
  codec: TokenCodec;
  store: BlobStore;
  jobs: JobClient;
  logger: Logger;
  logs: Record<string, unknown>[];
  close: () => Promise<void>;
}

/**
 * The real app on its own database (cloned from the migrated template) and its own Redis key prefix,
 * driven over HTTP through `app.handle`. Log lines are captured so tests can check what was logged.
 */
export async function spawnApp(
  env: Record<string, string> = {},
  options: { configsWorker?: boolean; poolMax?: number; quietLogs?: boolean } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const storageDir = mkdtempSync(join(tmpdir(), "joj-blobs-"));
  const config = loadConfig({
    MODE: "development",
    JWT_SECRET: TEST_JWT_SECRET,
    PUBLIC_URL: "http://localhost:34765",
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    // A prefix per app: each test file has its own queues, so its jobs reach only its own workers.
    QUEUE_PREFIX: `joj-test-${randomUUID()}`,
    STORAGE_DIR: storageDir,
    DATA_DIR: "/tmp/joj-test-data",
    // Rate limits are off unless a test turns one on: every test request comes from 127.0.0.1.
    RATE_LOGIN_FAILURES_PER_IP: "0",
    RATE_LOGIN_FAILURES_PER_ACCOUNT: "0",
    RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: "0",
    RATE_LOGINS_PER_ACCOUNT: "0",
    RATE_REGISTRATIONS_PER_IP: "0",
    RATE_SUBMISSIONS_PER_USER: "0",
    // Many test files hash passwords at once on two cores: no login is refused for waiting.
    PASSWORD_HASH_MAX_WAIT_MS: "600000",
    ...env,
  });
  return appOver(config, {
    poolMax: options.poolMax ?? 5,
    keyPrefix: `test:${randomUUID()}:`,
    configsWorker: options.configsWorker,
    quietLogs: options.quietLogs,
    cleanup: async () => {
      rmSync(storageDir, { recursive: true, force: true });
    },
    drop: () => database.drop(),
  });
}

/**
 * The app assembled as main.ts assembles it, over connections of its own to `config`'s database and Redis
 * (under `keyPrefix`), with its logs captured; `spawnApp` and a replica of one (twin-app.ts) share it.
 */
export async function appOver(
  config: Config,
  options: {
    poolMax: number;
    keyPrefix: string;
    configsWorker?: boolean;
    context?: Record<string, unknown>;
    /**
     * Logs at the config's LOG_LEVEL, formatted and dropped, as a benchmark wants: a test's capture logs
     * everything at debug and parses each line into `logs`, work no production process does per request.
     */
    quietLogs?: boolean;
    cleanup?: () => Promise<void>;
    drop?: () => Promise<void>;
  },
): Promise<TestApp> {
  // Small pools: many test files run at once. Benchmarks ask for the production size.
  const orm = await createOrm(config.databaseUrl!, { poolMax: options.poolMax });
  const redis = new Redis(config.redisUrl, { keyPrefix: options.keyPrefix, maxRetriesPerRequest: 1 });
  redis.on("error", () => {}); // a test may point at a Redis that is down on purpose
  const logs: Record<string, unknown>[] = [];
  const logger: Logger = options.quietLogs
    ? createLogger(config.logLevel, options.context ?? {}, () => {})
    : createLogger("debug", options.context ?? {}, (line) => logs.push(JSON.parse(line)));
  const version = { version: "0.0.0-test", git: "test@2026-01-01T00:00:00Z" };
  // The same assembly main.ts uses, over this test's own connections.
  const { app, deps } = assembleApp({ config, orm, redis, logger, version, shuttingDown: () => false });
  const { store, jobs } = deps;
  const testApp: TestApp = {
    app,
    api: new HttpClient(app),
    config,
    orm,
    redis,
    codec: createTokenCodec(config.jwtSecret),
    store,
    jobs,
    logger,
    logs,
    close: async () => {
      await worker?.close();
      await closeLiveStreams(jobs);
      await jobs.close();
      await options.cleanup?.();
      await orm.close(true);
      redis.disconnect();
      await options.drop?.();
    },
  };
  // The real configs worker in this process, on this app's own queues: jobs travel through Redis.
  const worker = options.configsWorker ? await startConfigsWorker(testApp) : undefined;
  return testApp;
}
