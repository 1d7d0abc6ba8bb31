import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Env } from "../core/env-reader";

/**
 * The server's secrets: how the JWT secret and the metrics token are read (config.ts loadConfig calls
 * these; config.ts serverSecrets lists what counts as a secret), and which settings a server worker
 * gets, none of them secret to the API.
 */

const WEAK_SECRETS = new Set(["secret", "changeme", "change-me", "password", "jwt-secret", "development"]);
const MIN_PRODUCTION_SECRET_LENGTH = 32;

/**
 * What the server's workers (the configs worker) read: the database, the queue, the storage, their own
 * clocks. Not the API's secrets: `JWT_SECRET`, `METRICS_TOKEN`, OAuth clients. `bun run start` hands the
 * configs worker these and nothing else (settings/child-env.ts).
 */
export const SERVER_WORKER_VARIABLES = [
  "MODE",
  "HOST",
  "PORT",
  "DATA_DIR",
  "PUBLIC_URL",
  "DATABASE_URL",
  "DATABASE_POOL_SIZE",
  "DATABASE_READ_POOL_SIZE",
  "REDIS_URL",
  "CSRF_PROTECTION",
  "STORAGE_DRIVER",
  "STORAGE_DIR",
  "S3_BUCKET",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_SESSION_TOKEN",
  "S3_PREFIX",
  "S3_ENDPOINT",
  "S3_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_ENDPOINT",
  "AWS_BUCKET",
  "JWT_ACCESS_TTL_SECONDS",
  "JWT_REFRESH_TTL_SECONDS",
  "ALLOWED_REDIRECT_ORIGINS",
  "TRUSTED_PROXIES",
  "TRUST_PROXY",
  "BODY_MAX_KB",
  "RATE_LOGIN_FAILURES_PER_IP",
  "RATE_LOGIN_FAILURES_PER_ACCOUNT",
  "RATE_REGISTRATIONS_PER_IP",
  "RATE_SUBMISSIONS_PER_USER",
  "RATE_CLARIFICATIONS_PER_USER",
  "RATE_LOGIN_FAILURES_PER_ACCOUNT_IP",
  "RATE_LOGINS_PER_ACCOUNT",
  "PASSWORD_HASH_CONCURRENCY",
  "PASSWORD_HASH_MAX_WAIT_MS",
  "LOG_LEVEL",
  "LOG_FORMAT",
  "LIVE_STREAMS_PER_USER",
  "LIVE_STREAMS_PER_PROCESS",
  "LIVE_STREAMS_PER_SITE",
  "LIVE_STREAM_QUEUE_KB",
  "LIVE_HEARTBEAT_SECONDS",
  "QUEUE_PREFIX",
  "JUDGER_ALIVE_SECONDS",
  "SHUTDOWN_TIMEOUT_MS",
  "SHUTDOWN_DRAIN_MS",
  "JUDGE_LEASE_SECONDS",
  "JUDGE_MAX_ATTEMPTS",
  "RECONCILE_EVERY_SECONDS",
  "SUBMIT_MAX_FILES",
  "SUBMIT_MAX_FILE_BYTES",
  "SUBMIT_MAX_TOTAL_BYTES",
  "GIT_COMMIT",
  "GIT_COMMIT_TIME",
  "WORKER_CONCURRENCY",
] as const;

/** A guessable token would publish the operator's view of the service: at least 16 characters. */
export function readMetricsToken(env: Env, problems: string[]): string | null {
  const token = env.METRICS_TOKEN?.trim();
  if (!token) return null;
  if (token.length < 16)
    problems.push("METRICS_TOKEN must be at least 16 characters (or unset: /metrics then answers loopback only)");
  return token;
}

/**
 * Production needs an explicit strong secret. Development without one gets a random secret kept under
 * DATA_DIR, so restarts keep sessions and no well-known default can ever sign a token.
 */
export function readJwtSecret(env: Env, production: boolean, dataDir: string, problems: string[]): string {
  const given = env.JWT_SECRET;
  if (given !== undefined && given !== "") {
    if (production && (given.length < MIN_PRODUCTION_SECRET_LENGTH || WEAK_SECRETS.has(given.toLowerCase()))) {
      problems.push(
        `JWT_SECRET is too weak for production: use at least ${MIN_PRODUCTION_SECRET_LENGTH} random characters ` +
          `(e.g. \`openssl rand -hex 32\`)`,
      );
    }
    return given;
  }
  if (production) {
    problems.push("JWT_SECRET is required in production (e.g. `openssl rand -hex 32`)");
    return "";
  }
  const file = join(dataDir, "jwt-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
