import { mkdirSync, readFileSync, statSync } from "node:fs";
import type { Subprocess } from "bun";
import { join } from "node:path";
import type { Config } from "../settings/config";
import type { Logger } from "../core/logger";
import { connectRedis, redisAnswers, StartupError } from "../core/startup";
import { spawnChild, stopChild } from "./children";
import { MACHINE_VARIABLES, pickEnv } from "../core/env-reader";
import { addressInUse, retryWhileBusy } from "./busy-port";

const READY_TIMEOUT_MS = 10_000;

export interface RedisForStart {
  url: string;
  /** Stops the redis-server this process started; undefined when it uses one that was already running. */
  stop?: () => Promise<void>;
}

/**
 * Finds the Redis `bun run start` uses. An explicit REDIS_URL must answer (connectRedis says why not).
 * Without one: whatever answers on 127.0.0.1:LOCAL_REDIS_PORT (default 6379), else a redis-server child
 * keeping its append-only file under DATA_DIR/redis, so queued jobs survive a restart.
 */
export async function redisForStart(
  config: Pick<Config, "redisUrlDefaulted" | "redisUrl" | "dataDir">,
  logger: Logger,
  env = process.env,
): Promise<RedisForStart> {
  if (!config.redisUrlDefaulted) {
    // Checked before the workers start, so the failure is one clear message rather than a restart loop.
    await (await connectRedis(config.redisUrl)).quit();
    return { url: config.redisUrl };
  }
  const port = localRedisPort(env);
  const url = `redis://127.0.0.1:${port}`;
  if (await redisAnswers(url)) {
    logger.info("using the Redis already running", { url });
    return { url };
  }
  const bin = Bun.which("redis-server");
  if (!bin) {
    throw new StartupError(
      `no Redis answers at ${url} and redis-server is not installed. Either install it (e.g. \`apt-get install redis-server\`, ` +
        "or `brew install redis`) and `bun run start` starts it for you; or set REDIS_URL to a running Redis; or " +
        "run `docker compose up -d redis`.",
    );
  }
  return startRedisServer(bin, port, url, join(config.dataDir, "redis"), logger);
}

function localRedisPort(env: Record<string, string | undefined>): number {
  const raw = env.LOCAL_REDIS_PORT?.trim() || "6379";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartupError(`LOCAL_REDIS_PORT must be a whole number from 1 to 65535, got "${raw}"`);
  }
  return port;
}

async function startRedisServer(
  bin: string,
  port: number,
  url: string,
  dir: string,
  logger: Logger,
): Promise<RedisForStart> {
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, "redis.log");
  const address = { server: "the local redis-server", host: "127.0.0.1", port, setting: "LOCAL_REDIS_PORT" };
  const child = await retryWhileBusy(address, logger, () => spawnRedisServer(bin, port, url, dir, logFile, logger));
  logger.info("redis-server ready", { url });
  let stopping = false;
  void child.exited.then((code) => {
    if (!stopping) logger.error("redis-server exited unexpectedly", { exitCode: code, log: logFile });
  });
  return {
    url,
    stop: async () => {
      stopping = true;
      await stopChild(child, 10_000);
      logger.info("redis-server stopped", { exitCode: child.exitCode });
    },
  };
}

/** One redis-server, once it answers; a bind it was refused (its log says so) fails as EADDRINUSE. */
async function spawnRedisServer(
  bin: string,
  port: number,
  url: string,
  dir: string,
  logFile: string,
  logger: Logger,
): Promise<Subprocess> {
  const logStart = sizeOf(logFile);
  // Snapshots off (--save ""): the append-only file alone is the durable copy, written on every second.
  const child = spawnChild(
    [
      bin,
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--save",
      "",
      "--logfile",
      logFile,
    ],
    { env: pickEnv(process.env, MACHINE_VARIABLES) },
  );
  logger.info("starting redis-server", { pid: child.pid, port, dir });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await redisAnswers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, 2_000);
      // The log is appended to by every start: only this one's lines say why this one failed.
      const written = readFrom(logFile, logStart);
      if (/Address already in use/i.test(written)) throw addressInUse(written.trim());
      throw new StartupError(`redis-server did not start on port ${port} (log ${logFile}): ${tail(logFile)}`);
    }
    await Bun.sleep(100);
  }
  return child;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString("utf8");
  } catch {
    return "";
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, "utf8").trim().split("\n").slice(-3).join(" | ") || "(empty log)";
  } catch {
    return "(no log written)";
  }
}
