import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, EnvReader, MACHINE_VARIABLES, pickEnv, type Env } from "../core/env-reader";
import { defaultLogFormat, LOG_FORMATS, type LogFormat, type LogLevel } from "../core/logger";
import { secretValuesOf } from "../core/redact";

/**
 * What a judge machine needs: where the API is, the judger's access key, and its own limits. It needs
 * no database and no JWT secret, so it runs on any machine that reaches the API (and, in queue mode,
 * Redis).
 */
export interface JudgeSettings {
  /** `queue`: tasks from the BullMQ judge queue; `http`: tasks long-polled from the API. */
  mode: "queue" | "http";
  /**
   * The API's origins, one or more (reports and downloads always go through the API): the judge keeps to
   * the one that answers and moves to the next when it does not (api/retries.ts).
   */
  serverUrls: string[];
  accessKeyId: string;
  secretAccessKey: string;
  redisUrl: string;
  queuePrefix: string;
  /** Records judged at once, each in its own sandbox slot (uid and work directory). */
  concurrency: number;
  /** Sandbox work directories (must be traversable by the slot uids: not under a private home). */
  workDir: string;
  /** Config files, by digest; versions are immutable, so the cache never goes stale. */
  cacheDir: string;
  cacheMaxBytes: number;
  /** First uid of this judge's slots; slots take uids from here upwards, locked per machine. */
  slotUidBase: number;
  /** A program's output (stdout + stderr + files) beyond this is `output_limit_exceeded`. */
  outputLimitBytes: number;
  /** Size of each slot's tmpfs and of a run's /tmp (their pages also count as the run's memory). */
  diskBytes: number;
  processes: number;
  /** Wall clock allowed per case: factor × CPU limit + slack. */
  wallFactor: number;
  wallSlackMs: number;
  compile: { cpuMs: number; wallMs: number; memoryKb: number; fileBytes: number; processes: number };
  /** On SIGTERM running records may finish for this long; then they are given back. */
  stopGraceMs: number;
  /** How long a call to the API is retried while it does not answer, before the record is given up. */
  apiRetryMs: number;
  logLevel: LogLevel;
  /** LOG_FORMAT, or readable lines on a terminal and JSON lines elsewhere. */
  logFormat: LogFormat;
}

/** Every variable the judge reads: a judge started by `bun run start` gets these and nothing else. */
export const JUDGE_VARIABLES = [
  "PORT",
  "JUDGE_SERVER_URL",
  "JUDGE_MODE",
  "JUDGER_ACCESS_KEY_ID",
  "JUDGER_SECRET_ACCESS_KEY",
  "DATA_DIR",
  "JUDGE_COMPILE_SECONDS",
  "REDIS_URL",
  "QUEUE_PREFIX",
  "JUDGE_CONCURRENCY",
  "JUDGE_WORK_DIR",
  "JUDGE_CACHE_DIR",
  "JUDGE_CACHE_MAX_MB",
  "JUDGE_SLOT_UID_BASE",
  "JUDGE_OUTPUT_LIMIT_MB",
  "JUDGE_DISK_MB",
  "JUDGE_PROCESSES",
  "JUDGE_COMPILE_MEMORY_MB",
  "JUDGE_STOP_GRACE_SECONDS",
  "JUDGE_API_RETRY_SECONDS",
  "LOG_LEVEL",
  "LOG_FORMAT",
] as const;

/** The server's secrets. A judge needs none of them and refuses to start with any in its environment. */
const SERVER_SECRET =
  /^(JWT_SECRET|DATABASE_URL|METRICS_TOKEN|POSTGRES_PASSWORD|PGPASSWORD|(S3|AWS)_\w*(KEY|TOKEN)\w*|OAUTH_\w+_SECRET)$/;

/** The server's secrets present in an environment, by name. */
export function serverSecretsIn(env: Env): string[] {
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && env[name] !== "" && SERVER_SECRET.test(name))
    .sort();
}

/**
 * A judge's environment built from an allow-list of what it reads, never the parent's minus some names:
 * a setting added to the server later stays out of the judge (and of every sandbox) by default. The
 * queue's Redis URL only in queue mode.
 */
export function judgeChildEnv(env: Env): Record<string, string> {
  const child = pickEnv(env, [...MACHINE_VARIABLES, ...JUDGE_VARIABLES]);
  if (child.JUDGE_MODE === "http") delete child.REDIS_URL;
  return child;
}

/** The values a judge must never let out: its key, the queue's URL, and any secret-named variable it has. */
export function judgeSecrets(settings: JudgeSettings, env: Env): string[] {
  const own = [settings.secretAccessKey, settings.accessKeyId, settings.mode === "queue" ? settings.redisUrl : ""];
  return [...own, ...secretValuesOf(env)].filter((value) => value.length > 0);
}

/** `--server URL` (HTTP mode) or `--mode queue|http` on the command line win over the environment. */
export function loadJudgeSettings(env: Env = process.env, argv: string[] = process.argv.slice(2)): JudgeSettings {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const flags = parseFlags(argv, problems);
  const port = read.integer("PORT", 34765, 1, 65535);
  const serverUrls = flags.servers.length > 0 ? flags.servers : readServerUrls(env, port, problems);
  const mode = (flags.mode ??
    (flags.servers.length > 0
      ? "http"
      : read.oneOf("JUDGE_MODE", ["queue", "http"] as const, "queue"))) as JudgeSettings["mode"];
  const accessKeyId = read.optional("JUDGER_ACCESS_KEY_ID");
  const secretAccessKey = read.optional("JUDGER_SECRET_ACCESS_KEY");
  if (!accessKeyId || !secretAccessKey) {
    problems.push(
      "JUDGER_ACCESS_KEY_ID and JUDGER_SECRET_ACCESS_KEY are required: create a judger with POST /admin/judgers " +
        "(site root) and use its access key",
    );
  }
  const dataDir = resolve(read.string("DATA_DIR", ".data"));
  const compileSeconds = read.integer("JUDGE_COMPILE_SECONDS", 10, 1, 600);
  const settings: JudgeSettings = {
    mode,
    serverUrls,
    accessKeyId: accessKeyId ?? "",
    secretAccessKey: secretAccessKey ?? "",
    redisUrl: read.optionalUrl("REDIS_URL", ["redis:", "rediss:"]) ?? "redis://127.0.0.1:6379",
    queuePrefix: read.string("QUEUE_PREFIX", "joj"),
    concurrency: read.integer("JUDGE_CONCURRENCY", cpus().length || 1, 1, 256),
    workDir: resolve(read.string("JUDGE_WORK_DIR", join(tmpdir(), "joj-judge"))),
    cacheDir: resolve(read.string("JUDGE_CACHE_DIR", join(dataDir, "judge-cache"))),
    cacheMaxBytes: read.integer("JUDGE_CACHE_MAX_MB", 2048, 16, 1024 * 1024) * 1024 * 1024,
    slotUidBase: read.integer("JUDGE_SLOT_UID_BASE", 60_000, 1000, 4_000_000_000),
    outputLimitBytes: read.integer("JUDGE_OUTPUT_LIMIT_MB", 16, 1, 4096) * 1024 * 1024,
    diskBytes: read.integer("JUDGE_DISK_MB", 512, 16, 65536) * 1024 * 1024,
    processes: read.integer("JUDGE_PROCESSES", 64, 1, 4096),
    wallFactor: 2,
    wallSlackMs: 1_000,
    compile: {
      cpuMs: compileSeconds * 1000,
      wallMs: compileSeconds * 2000,
      memoryKb: read.integer("JUDGE_COMPILE_MEMORY_MB", 1024, 16, 65536) * 1024,
      fileBytes: 256 * 1024 * 1024,
      processes: 64,
    },
    stopGraceMs: read.integer("JUDGE_STOP_GRACE_SECONDS", 20, 0, 3600) * 1000,
    apiRetryMs: read.integer("JUDGE_API_RETRY_SECONDS", 30, 1, 600) * 1000,
    logLevel: read.oneOf("LOG_LEVEL", ["debug", "info", "warn", "error"] as const, "info"),
    logFormat: read.oneOf("LOG_FORMAT", LOG_FORMATS, defaultLogFormat()),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

function parseFlags(argv: string[], problems: string[]): { servers: string[]; mode?: string } {
  const flags: { servers: string[]; mode?: string } = { servers: [] };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=", 2) as [string, string | undefined];
    if (name !== "--server" && name !== "--mode") {
      problems.push(`unknown argument "${argv[i]}" (use --server URL and/or --mode queue|http)`);
      continue;
    }
    const value = inline ?? argv[++i];
    if (name === "--server") {
      // Repeated, or a comma-separated list: the API's addresses, tried in turn.
      for (const one of (value ?? "").split(",").filter((part, _, all) => part.trim() || all.length === 1)) {
        const origin = originOf(one.trim());
        if (origin) flags.servers.push(origin);
        else problems.push(`--server must be the API's http(s) URL, got "${one.trim()}"`);
      }
    } else if (value === "queue" || value === "http") {
      flags.mode = value;
    } else {
      problems.push(`--mode must be queue or http, got "${value ?? ""}"`);
    }
  }
  flags.servers = [...new Set(flags.servers)];
  return flags;
}

/** An http(s) URL without its query and trailing slashes (what the judge appends its paths to), or null. */
function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    return url.protocol === "http:" || url.protocol === "https:" ? base : null;
  } catch {
    return null;
  }
}

/** JUDGE_SERVER_URL: one address, or several separated by commas (the APIs behind no load balancer). */
function readServerUrls(env: Env, port: number, problems: string[]): string[] {
  const given = env.JUDGE_SERVER_URL?.trim();
  if (!given) return [`http://127.0.0.1:${port}`];
  const listed = given
    .split(",")
    .map((one) => one.trim())
    .filter(Boolean);
  const origins = listed.map((one) => ({ one, origin: originOf(one) }));
  for (const { one, origin } of origins)
    if (!origin) problems.push(`JUDGE_SERVER_URL must list the API's http(s) URLs, got "${one}"`);
  return [...new Set(origins.flatMap(({ origin }) => (origin ? [origin] : [])))];
}
