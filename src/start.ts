import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, type Config } from "./settings/config";
import { createLogger, type Logger } from "./core/logger";
import { runApi } from "./main";
import { DOCS_PATH } from "./http/docs.plugin";
import { migrate } from "./server/database";
import { connectPostgres } from "./server/database";
import { exitOnStartupError, StartupError } from "./core/startup";
import { startEmbeddedPostgres } from "./runtime/embedded-postgres";
import { redisForStart } from "./runtime/local-redis";
import { supervise } from "./runtime/children";
import { childEnv } from "./settings/child-env";
import { prepareLocalJudger } from "./server/local-judger";

/**
 * `bun run start`: the whole system on a bare machine. PostgreSQL (embedded, when DATABASE_URL is unset),
 * Redis (a local redis-server, when REDIS_URL is unset and none answers), migrations, both workers as
 * supervised children, and the API in this process. Production runs each piece separately (compose.yaml).
 */

type Step = { name: string; run: () => Promise<unknown> };

type WorkerName = "configs" | "judge";
const bootLogger = createLogger("info", { service: "start" });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  exitOnStartupError(bootLogger, error);
}
const logger = createLogger(config.logLevel, { service: "start" }, { format: config.logFormat });

// What has been started so far, stopped in reverse order when start-up fails or is interrupted.
const started: Step[] = [];
const stopStarted = async () => {
  for (const step of [...started].reverse()) {
    try {
      await step.run();
    } catch (error) {
      logger.warn("could not stop after a failed start-up", { step: step.name, error });
    }
  }
};

// Until the API installs its graceful shutdown, a signal stops what is already running and exits.
let interrupted = false;
const onEarlySignal = (signal: string) => {
  if (interrupted) process.exit(1);
  interrupted = true;
  logger.warn("interrupted during start-up", { signal });
  void stopStarted().finally(() => process.exit(1));
};
process.on("SIGTERM", onEarlySignal);
process.on("SIGINT", onEarlySignal);
// Workers and redis-server run in their own process groups, so Ctrl-C reaches only this process, which
// stops them in order. (The embedded PostgreSQL is spawned by its package in ours, so Ctrl-C also starts its
// fast shutdown at once; `kill -TERM` of this process keeps the full order.) A closed terminal goes the same way.
process.on("SIGHUP", () => process.kill(process.pid, "SIGTERM"));

try {
  // Everything this process and its children write lives under DATA_DIR; a fresh clone has none.
  mkdirSync(config.dataDir, { recursive: true });
  if (!config.databaseUrl) {
    const port = embeddedPostgresPort();
    const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port, logger });
    started.push({ name: "embedded postgres", run: pg.stop });
    setEnv(config, "databaseUrl", "DATABASE_URL", pg.url);
  }
  const redis = await redisForStart(config, logger);
  if (redis.stop) started.push({ name: "local redis", run: redis.stop });
  setEnv(config, "redisUrl", "REDIS_URL", redis.url);

  await applyMigrations(config, logger);

  // Bounded below the API's per-step timeout, so a stuck worker is killed rather than outliving the database.
  const workerGraceMs = Math.max(0, config.shutdownTimeoutMs - 1_000);
  const localJudge = await prepareLocalJudger(config, logger);
  // Each worker gets only its own settings (child-env.ts), and does not read a .env file again: Bun
  // loaded it into this process, whose environment holds the API's secrets.
  const spawnWorker = (name: WorkerName) =>
    supervise(
      `worker:${name}`,
      [process.execPath, "--no-env-file", join(import.meta.dir, "..", "workers", `${name}.ts`)],
      childEnv(name, process.env),
      logger,
    );
  const configs = spawnWorker("configs");
  const stopConfigs: Step = { name: "worker:configs", run: () => configs.stop(workerGraceMs) };
  started.push(stopConfigs);
  // The judge stops first, while the API still answers: its records in flight report (within its own
  // grace) or are given back, instead of waiting in `compiling` for their lease to lapse.
  const judge = localJudge.judge ? spawnWorker("judge") : null;
  const judgeGraceMs = judgeStopGraceMs() + 5_000;
  const stopJudge = judge
    ? { name: "worker:judge", run: () => judge.stop(judgeGraceMs), timeoutMs: judgeGraceMs + 5_000 }
    : null;
  if (stopJudge) started.push(stopJudge);

  const databases = started.filter((s) => s !== stopConfigs && s !== stopJudge).reverse();
  const names = judge ? ["configs", "judge"] : ["configs"];
  await runApi(config, createLogger(config.logLevel, { service: "api" }, { format: config.logFormat }), {
    first: stopJudge ? [stopJudge] : [],
    extra: [stopConfigs],
    final: databases,
  });
  process.off("SIGTERM", onEarlySignal);
  process.off("SIGINT", onEarlySignal);
  const docs = `${config.publicUrl}${DOCS_PATH}`;
  logger.info(`ready: API at ${config.publicUrl}, docs at ${docs}`, { api: config.publicUrl, docs, workers: names });
  if (localJudge.notice) console.error(localJudge.notice);
} catch (error) {
  await stopStarted();
  exitOnStartupError(logger, error);
}

/** The judge's own grace on SIGTERM (judge-settings.ts reads the same variable, default 20 s). */
function judgeStopGraceMs(): number {
  const seconds = Number(process.env.JUDGE_STOP_GRACE_SECONDS?.trim() || "20");
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 20_000;
}

function embeddedPostgresPort(): number {
  const raw = process.env.EMBEDDED_POSTGRES_PORT?.trim() || "54329";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartupError(`EMBEDDED_POSTGRES_PORT must be a whole number from 1 to 65535, got "${raw}"`);
  }
  return port;
}

/** This process uses the config; the workers, which load their own, get the environment variable. */
function setEnv(target: Config, key: "databaseUrl" | "redisUrl", name: string, value: string): void {
  target[key] = value;
  process.env[name] = value;
}

async function applyMigrations(config: Config, logger: Logger): Promise<void> {
  const orm = await connectPostgres(config.databaseUrl, { poolMax: 2 });
  try {
    const applied = await migrate(orm);
    logger.info("migrations applied", { applied, count: applied.length });
  } catch (error) {
    throw new StartupError(`migrations failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await orm.close();
  }
}
