import Redis from "ioredis";
import type { Logger } from "./logger";

/** A start-up failure whose message says what to fix; shown to a person, not as a stack trace. */
export class StartupError extends Error {
  override name = "StartupError";
}

const CONNECT_TIMEOUT_MS = 5_000;

/** Hides the password of a connection URL before it goes into a message. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Connects to Redis (the API's presence data and BullMQ's broker), or fails naming REDIS_URL. */
export async function connectRedis(redisUrl: string): Promise<Redis> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: true,
  });
  redis.on("error", () => {}); // reported through connect() and the readiness probe, not as unhandled events
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `cannot connect to Redis at ${redactUrl(redisUrl)}: ${reason}. Is it running, and is REDIS_URL right?`,
    );
  }
}

export async function redisAnswers(redisUrl: string): Promise<boolean> {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    // A port held by something that is not Redis accepts the connection and never answers: without a
    // limit the ready check (INFO) and the PING wait for ever, and `bun run start` with them.
    commandTimeout: 1_000,
    retryStrategy: () => null,
  });
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
