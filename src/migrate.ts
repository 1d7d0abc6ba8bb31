import { loadConfig } from "./settings/config";
import { createLogger } from "./core/logger";
import { connectPostgres, migrate } from "./server/database";
import { exitOnStartupError } from "./core/startup";

/** `bun run db:migrate`: applies pending migrations; the explicit production step. */
const logger = createLogger("info", { service: "migrate" });
try {
  const config = loadConfig(process.env, "worker");
  const orm = await connectPostgres(config.databaseUrl, { poolMax: 2 });
  const applied = await migrate(orm);
  logger.info("migrations applied", { applied, count: applied.length });
  await orm.close();
} catch (error) {
  exitOnStartupError(logger, error);
}
