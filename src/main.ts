import { loadConfig, type Config } from "./config";
import { createLogger, type Logger } from "./logger";
import { createApp } from "./app";
import { readVersion } from "./version";
import { JudgerPresence } from "./modules/admin/judger-presence";
import { connectPostgres, connectRedis, exitOnStartupError } from "./runtime/connect";
import { onShutdown } from "./runtime/shutdown";

/** Starts the HTTP API: config → PostgreSQL → Redis → app → listen, with graceful shutdown. */
export async function runApi(config: Config, logger: Logger, extraShutdownSteps: { name: string; run: () => unknown }[] = []) {
  const orm = await connectPostgres(config.databaseUrl);
  const redis = await connectRedis(config.redisUrl);
  let shuttingDown = false;
  const app = createApp({
    config,
    orm,
    redis,
    logger,
    presence: new JudgerPresence(redis, (error) => logger.warn("judger presence write failed", { error })),
    version: readVersion(),
    shuttingDown: () => shuttingDown,
  });
  app.listen({ hostname: config.host, port: config.port });
  logger.info("api listening", { host: config.host, port: config.port, publicUrl: config.publicUrl, mode: config.mode });
  onShutdown(logger, config.shutdownTimeoutMs, [
    // Stop accepting; in-flight requests finish before the pools close.
    { name: "http", run: () => app.stop(false) },
    ...extraShutdownSteps,
    { name: "postgres", run: () => orm.close() },
    { name: "redis", run: () => redis.quit() },
  ], () => { shuttingDown = true; });
  return app;
}

if (import.meta.main) {
  const bootLogger = createLogger("info", { service: "api" });
  try {
    const config = loadConfig();
    await runApi(config, createLogger(config.logLevel, { service: "api" }));
  } catch (error) {
    exitOnStartupError(bootLogger, error);
  }
}
