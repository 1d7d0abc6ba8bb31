import Redis from "ioredis";
import type { Config } from "../config";
import type { Logger } from "../logger";
import { createOrm, redactUrl, type Orm } from "../db/orm";

export class StartupError extends Error {
  override name = "StartupError";
}

const CONNECT_TIMEOUT_MS = 5_000;

/** Connects to PostgreSQL, or fails with a message that says what to fix. */
export async function connectPostgres(databaseUrl: string | undefined, options: { poolMax?: number } = {}): Promise<Orm> {
  if (!databaseUrl) {
    throw new StartupError(
      "DATABASE_URL is not set. Set it (postgres://user:pass@host:5432/db), or use `bun run start`, which runs an embedded PostgreSQL when it is unset.",
    );
  }
  try {
    return await createOrm(databaseUrl, options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${reason}. Is it running, and is DATABASE_URL right?`);
  }
}

/** Connects to Redis (the API's presence data and BullMQ's broker), or fails naming REDIS_URL. */
export async function connectRedis(redisUrl: string): Promise<Redis> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: CONNECT_TIMEOUT_MS, enableOfflineQueue: true });
  redis.on("error", () => {}); // reported through connect() and the readiness probe, not as unhandled events
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot connect to Redis at ${redactUrl(redisUrl)}: ${reason}. Is it running, and is REDIS_URL right?`);
  }
}

export async function redisAnswers(redisUrl: string): Promise<boolean> {
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on("error", () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Prints a start-up failure for humans (and as a log line) and exits non-zero. */
export function exitOnStartupError(logger: Logger, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  logger.error("start-up failed", { reason: message });
  console.error(`\nstart-up failed: ${message}\n`);
  process.exit(1);
}

export type { Config };
