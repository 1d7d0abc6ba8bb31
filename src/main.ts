import { loadConfig, type Config } from "./settings/config";
import { createLogger, type Logger } from "./core/logger";
import { assembleApp } from "./server/app";
import { readVersion } from "./runtime/version";
import { connectPostgres } from "./server/database";
import { connectRedis, exitOnStartupError } from "./core/startup";
import { onShutdown } from "./core/shutdown";
import { BUN_BODY_LIMIT } from "./http/body-limits";
import { closeLiveStreams } from "./modules/record-events/record-events.routes";
import { retryWhileBusy } from "./runtime/busy-port";

type ShutdownStep = { name: string; run: () => unknown; timeoutMs?: number };

/** What `bun run start` stops around the API: see runApi. */
export interface AroundApi {
  /** While the API still answers: the built-in judge, whose records in flight must report. */
  first?: ShutdownStep[];
  /** After the API stopped accepting, before its pools close: the other workers. */
  extra?: ShutdownStep[];
  /** Last: the database servers `bun run start` itself started, which the pools use until then. */
  final?: ShutdownStep[];
}

/** Starts the HTTP API: config → PostgreSQL → Redis → app → listen, with graceful shutdown. */
export async function runApi(config: Config, logger: Logger, around: AroundApi = {}) {
  const { poolSize, readPoolSize } = config.database;
  const orm = await connectPostgres(config.databaseUrl, { poolMax: poolSize, readPoolMax: readPoolSize });
  const redis = await connectRedis(config.redisUrl);
  let shuttingDown = false;
  const { app, deps } = assembleApp({
    config,
    orm,
    redis,
    logger,
    version: readVersion(),
    shuttingDown: () => shuttingDown,
  });
  const { jobs } = deps;
  // Handlers before listening: a SIGTERM that arrives right after start-up must still stop cleanly.
  onShutdown(
    logger,
    config.shutdownTimeoutMs,
    [
      ...(around.first ?? []),
      // /readyz is 503 from the signal on, but a load balancer only learns it at its next probe: keep
      // serving everything (streams too) until it has, so no request meets a closed port.
      { name: "drain", run: () => Bun.sleep(config.shutdownDrainMs), timeoutMs: config.shutdownDrainMs + 1_000 },
      // Live streams never finish by themselves: end them, so that the server's stop below can.
      { name: "live streams", run: () => closeLiveStreams(jobs) },
      // Stop accepting; in-flight requests finish before the pools close.
      { name: "http", run: () => app.stop(false) },
      ...(around.extra ?? []),
      { name: "queues", run: () => jobs.close() },
      { name: "postgres", run: () => orm.close() },
      { name: "redis", run: () => redis.quit() },
      ...(around.final ?? []),
    ],
    () => {
      shuttingDown = true;
    },
  );
  const address = { server: "the API", host: config.host, port: config.port, setting: "PORT" };
  // The route limits are ours (body-limits.ts), so that a refusal is the envelope, not Bun's bare 413.
  await retryWhileBusy(address, logger, () =>
    app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: BUN_BODY_LIMIT }),
  );
  logger.info("api listening", {
    host: config.host,
    port: config.port,
    publicUrl: config.publicUrl,
    mode: config.mode,
  });
  return app;
}

if (import.meta.main) {
  const bootLogger = createLogger("info", { service: "api" });
  try {
    const config = loadConfig();
    await runApi(config, createLogger(config.logLevel, { service: "api" }, { format: config.logFormat }));
  } catch (error) {
    exitOnStartupError(bootLogger, error);
  }
}
