import { join, resolve } from "node:path";
import { cpus, totalmem } from "node:os";
import { parseCidr } from "../http/client-ip";
import { ConfigError, EnvReader, type Env } from "../core/env-reader";
import { readOAuthSettings, type OAuthSettings } from "./oauth-settings";
import { NO_RUNS, readRunSettings, type RunSettings } from "./run-settings";
import { readJwtSecret, readMetricsToken } from "./secret-settings";
import { readS3Settings, type S3StorageSettings } from "./storage-settings";
import {
  type DatabaseSettings,
  type LiveStreamSettings,
  readLiveStreamSettings,
  readPoolSizes,
} from "./capacity-settings";

export type { DatabaseSettings, LiveStreamSettings, S3StorageSettings };

export type Mode = "development" | "production";
import { defaultLogFormat, LOG_FORMATS, type LogFormat, type LogLevel } from "../core/logger";
export type { LogLevel };

export type { RunSettings };

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  /** The origin clients use to reach the API (scheme://host[:port]); redirects and CSRF checks use it. */
  publicUrl: string;
  /** Unset means "start an embedded PostgreSQL" under `bun run start`; the other entrypoints require it. */
  databaseUrl: string | undefined;
  /**
   * Connections this process may open to PostgreSQL: the ORM's pool and the hot reads' pool beside it
   * (db/statements.ts), each up to its size. docs/operations.md "Connections" sums them per layout.
   */
  database: DatabaseSettings;
  redisUrl: string;
  /** True when REDIS_URL was not given, so `bun run start` may start a local redis-server. */
  redisUrlDefaulted: boolean;
  dataDir: string;
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** CSRF double-submit protection and Secure cookies; on in production unless CSRF_PROTECTION says otherwise. */
  csrfProtection: boolean;
  allowedRedirectOrigins: string[];
  /** Peers (CIDRs) whose `X-Forwarded-For` is believed: the reverse proxies in front of the API. */
  trustedProxies: string[];
  /** The largest JSON or form body of any route (uploads have their own limits). */
  bodyMaxBytes: number;
  rateLimits: RateLimitSettings;
  /** Password hashes (argon2id, 64 MiB each) computed at once; more wait their turn, fairly. */
  passwordHashConcurrency: number;
  /** A hash that would wait longer than this is refused at once (429 with Retry-After). */
  passwordHashMaxWaitMs: number;
  logLevel: LogLevel;
  /** LOG_FORMAT, or readable lines on a terminal and JSON lines elsewhere. */
  logFormat: LogFormat;
  /**
   * Live streams (records' Server-Sent Events, the Contest API's feeds): open at once per user, per API process
   * and per site (all processes); the heartbeat's period; the bytes a stream may have waiting for a client that
   * does not read before it is dropped.
   */
  liveStreams: LiveStreamSettings;
  /** Bearer token for `/metrics` from anywhere but loopback; unset: loopback only. */
  metricsToken: string | null;
  queuePrefix: string;
  judgerAliveSeconds: number;
  storage: {
    driver: "fs" | "s3";
    /** Root of the filesystem blob store; unused by the s3 driver. */
    dir: string;
    /** Set only for the s3 driver. */
    s3: S3StorageSettings | null;
  };
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long the API keeps serving with /readyz at 503 before it closes its listener. */
  shutdownDrainMs: number;
  judging: JudgingSettings;
  submissions: SubmissionLimits;
  runs: RunSettings;
  oauth: OAuthSettings;
}

/** The judge protocol's clocks: how long a claim lasts without a report, and how often it may lapse. */
export interface JudgingSettings {
  leaseSeconds: number;
  maxAttempts: number;
  /** How often the reconciler looks for lapsed leases and records without a live job. */
  reconcileEverySeconds: number;
}

/** A token bucket: `burst` at once, refilled at `perMinute`. */
export interface Rate {
  perMinute: number;
  burst: number;
}

/** Counted in Redis, so every API process shares them. The login policy is in login-limits.ts. */
export interface RateLimitSettings {
  /** Wrong passwords from one address, whatever the account (password spraying). */
  loginFailuresPerIp: Rate;
  /** Wrong passwords for one account from one address: the strict limit. */
  loginFailuresPerAccountIp: Rate;
  /** Wrong passwords for one account from anywhere: once spent, only addresses without a failure try. */
  loginFailuresPerAccount: Rate;
  /** Successful logins of one account from one address: generous, against a flood of correct logins. */
  loginsPerAccount: Rate;
  registrationsPerIp: Rate;
  submissionsPerUser: Rate;
  /** Questions to a set's jury (clarifications); staff's answers and announcements are not counted. */
  clarificationsPerUser: Rate;
}

/** What one submission may carry. */
export interface SubmissionLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

/**
 * Reads the environment once; every bad or missing setting is reported together, by name. A worker
 * reads no API secret: its config has no JWT secret, no metrics token and no OAuth clients.
 */
export function loadConfig(env: Env = process.env, role: "api" | "worker" = "api"): Config {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const api = role === "api";

  const mode = read.oneOf("MODE", ["development", "production"] as const, "development");
  const host = read.string("HOST", "0.0.0.0");
  const port = read.integer("PORT", 34765, 1, 65535);
  const dataDir = resolve(read.string("DATA_DIR", ".data"));
  const publicUrl = read.url("PUBLIC_URL", `http://localhost:${port}`);
  const databaseUrl = read.optionalUrl("DATABASE_URL", ["postgres:", "postgresql:"]);
  const redisUrlDefaulted = !env.REDIS_URL;
  const redisUrl = read.optionalUrl("REDIS_URL", ["redis:", "rediss:"]) ?? "redis://127.0.0.1:6379";
  const jwtSecret = api ? readJwtSecret(env, mode === "production", dataDir, problems) : "";
  const csrfProtection = read.boolean("CSRF_PROTECTION", mode === "production");
  const storageDriver = read.oneOf("STORAGE_DRIVER", ["fs", "s3"] as const, "fs");

  const config: Config = {
    mode,
    host,
    port,
    publicUrl: publicUrl ? new URL(publicUrl).origin : `http://localhost:${port}`,
    databaseUrl,
    database: readPoolSizes(read, api),
    redisUrl,
    redisUrlDefaulted,
    dataDir,
    jwtSecret,
    accessTokenTtlSeconds: read.integer("JWT_ACCESS_TTL_SECONDS", 14 * 24 * 3600, 60, 365 * 24 * 3600),
    refreshTokenTtlSeconds: read.integer("JWT_REFRESH_TTL_SECONDS", 30 * 24 * 3600, 60, 365 * 24 * 3600),
    csrfProtection,
    allowedRedirectOrigins: read
      .list("ALLOWED_REDIRECT_ORIGINS")
      .map((o) => read.origin("ALLOWED_REDIRECT_ORIGINS", o)),
    trustedProxies: readTrustedProxies(read, env, problems),
    bodyMaxBytes: read.integer("BODY_MAX_KB", 1024, 16, 1024 * 1024) * 1024,
    rateLimits: {
      loginFailuresPerIp: readRate(read, "RATE_LOGIN_FAILURES_PER_IP", 30, 60),
      loginFailuresPerAccountIp: readRate(read, "RATE_LOGIN_FAILURES_PER_ACCOUNT_IP", 1, 5),
      loginFailuresPerAccount: readRate(read, "RATE_LOGIN_FAILURES_PER_ACCOUNT", 0.5, 20),
      loginsPerAccount: readRate(read, "RATE_LOGINS_PER_ACCOUNT", 10, 20),
      registrationsPerIp: readRate(read, "RATE_REGISTRATIONS_PER_IP", 30, 30),
      submissionsPerUser: readRate(read, "RATE_SUBMISSIONS_PER_USER", 60, 30),
      clarificationsPerUser: readRate(read, "RATE_CLARIFICATIONS_PER_USER", 2, 10),
    },
    passwordHashConcurrency: read.integer("PASSWORD_HASH_CONCURRENCY", affordableHashes(), 1, 256),
    passwordHashMaxWaitMs: read.integer("PASSWORD_HASH_MAX_WAIT_MS", 3_000, 100, 600_000),
    logLevel: read.oneOf("LOG_LEVEL", ["debug", "info", "warn", "error"] as const, "info"),
    logFormat: read.oneOf("LOG_FORMAT", LOG_FORMATS, defaultLogFormat()),
    metricsToken: api ? readMetricsToken(env, problems) : null,
    liveStreams: readLiveStreamSettings(read),
    queuePrefix: read.string("QUEUE_PREFIX", "joj"),
    judgerAliveSeconds: read.integer("JUDGER_ALIVE_SECONDS", 60, 5, 86400),
    storage: {
      driver: storageDriver,
      dir: resolve(read.string("STORAGE_DIR", join(dataDir, "storage"))),
      s3: storageDriver === "s3" ? readS3Settings(read, problems) : null,
    },
    shutdownTimeoutMs: read.integer("SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    shutdownDrainMs: read.integer("SHUTDOWN_DRAIN_MS", 0, 0, 600_000),
    judging: {
      leaseSeconds: read.integer("JUDGE_LEASE_SECONDS", 60, 1, 3600),
      maxAttempts: read.integer("JUDGE_MAX_ATTEMPTS", 3, 1, 20),
      reconcileEverySeconds: read.integer("RECONCILE_EVERY_SECONDS", 10, 1, 3600),
    },
    submissions: {
      maxFiles: read.integer("SUBMIT_MAX_FILES", 16, 1, 1000),
      maxFileBytes: read.integer("SUBMIT_MAX_FILE_BYTES", 256 * 1024, 1, 64 * 1024 * 1024),
      maxTotalBytes: read.integer("SUBMIT_MAX_TOTAL_BYTES", 1024 * 1024, 1, 256 * 1024 * 1024),
    },
    // Read by the API only: the housekeeping in the configs worker goes by each run's own expiry.
    runs: api ? readRunSettings(read) : NO_RUNS,
    oauth: api ? readOAuthSettings(read, problems) : { github: null, jaccount: null, oidc: null },
  };
  if (config.refreshTokenTtlSeconds < config.accessTokenTtlSeconds) {
    problems.push("JWT_REFRESH_TTL_SECONDS must not be shorter than JWT_ACCESS_TTL_SECONDS");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The values this server must never store or show: output that holds one is cut (core/redact.ts). */
export function serverSecrets(config: Config): string[] {
  const { oauth, storage } = config;
  return [
    config.jwtSecret,
    config.databaseUrl,
    config.redisUrl,
    config.metricsToken,
    storage.s3?.secretAccessKey,
    oauth.github?.clientSecret,
    oauth.jaccount?.clientSecret,
    oauth.oidc?.clientSecret,
  ].filter((value): value is string => typeof value === "string" && value.length > 0);
}

/** One hash per core, within a quarter of the machine's memory at 64 MiB each. */
function affordableHashes(): number {
  return Math.max(1, Math.min(cpus().length, Math.floor(totalmem() / 4 / (64 * 1024 * 1024))));
}

/** `NAME` = "per minute[,burst]": `RATE_SUBMISSIONS_PER_USER=60,30`; 0 turns the limit off. */
function readRate(read: EnvReader, name: string, perMinute: number, burst: number): Rate {
  const [rate, size] = read.list(name).map(Number);
  if (rate === undefined) return { perMinute, burst };
  return {
    perMinute: Number.isFinite(rate) && rate >= 0 ? rate : perMinute,
    burst: Number.isFinite(size) && size > 0 ? size : Math.max(1, rate),
  };
}

function readTrustedProxies(read: EnvReader, env: Env, problems: string[]): string[] {
  if (env.TRUST_PROXY !== undefined && env.TRUST_PROXY !== "" && env.TRUST_PROXY !== "false") {
    problems.push(
      "TRUST_PROXY is replaced by TRUSTED_PROXIES: list your reverse proxies' addresses or networks (e.g. " +
        "TRUSTED_PROXIES=127.0.0.1/32,10.0.0.0/8)",
    );
  }
  const cidrs = read.list("TRUSTED_PROXIES");
  for (const cidr of cidrs)
    if (!parseCidr(cidr)) problems.push(`TRUSTED_PROXIES: "${cidr}" is not an address or a CIDR network`);
  return cidrs;
}
