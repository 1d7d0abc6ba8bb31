import { SQL } from "bun";
import { join } from "node:path";
import { createLogger } from "../../src/core/logger";
import { redisAnswers } from "../../src/core/startup";
import { startEmbeddedPostgres } from "../../src/runtime/embedded-postgres";
import { redisForStart } from "../../src/runtime/local-redis";
import { freePort } from "./ports";

/**
 * The PostgreSQL and Redis a test run uses, chosen once per `bun test` process by the preload, before any
 * test file reads TEST_POSTGRES_URL or TEST_REDIS_URL (docs in the README's "Tests"):
 * - a URL given in TEST_POSTGRES_URL / TEST_REDIS_URL;
 * - else the server answering at its usual place (127.0.0.1:5432 as postgres without a password, as CI runs
 *   it; 127.0.0.1:6379);
 * - else one started for the run the way `bun run start` does: the embedded PostgreSQL (its cluster kept
 *   under .data/test, so only the first run pays for initdb) and a redis-server, each on a free port, both
 *   stopped when the run ends.
 */
const SYSTEM_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
const SYSTEM_REDIS = "redis://127.0.0.1:6379";
const DATA_DIR = join(import.meta.dir, "../../.data/test");

export interface TestServices {
  postgres: "given" | "system" | "embedded";
  redis: "given" | "system" | "local";
  stop: () => Promise<void>;
}

async function postgresAnswers(url: string): Promise<boolean> {
  const sql = new SQL(url, { max: 1, connectionTimeout: 2 });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.close().catch(() => {});
  }
}

export async function chooseTestServices(env = process.env): Promise<TestServices> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const each of stops.reverse()) await each().catch(() => {});
  };
  try {
    return { ...(await choose(env, stops)), stop };
  } catch (error) {
    // A PostgreSQL started before Redis failed would otherwise outlive the run.
    await stop();
    throw error;
  }
}

async function choose(env: NodeJS.ProcessEnv, stops: (() => Promise<void>)[]) {
  // Errors only: every test file drops its database with (force), which PostgreSQL logs as a FATAL line.
  const logger = createLogger("error", { service: "test-services" });
  let postgres: TestServices["postgres"] = "given";
  if (!env.TEST_POSTGRES_URL) {
    if (await postgresAnswers(SYSTEM_POSTGRES)) postgres = "system";
    else {
      const pg = await startEmbeddedPostgres({ dataDir: DATA_DIR, port: await freePort(), logger });
      stops.push(pg.stop);
      const admin = new URL(pg.url);
      admin.pathname = "/postgres";
      env.TEST_POSTGRES_URL = admin.toString();
      postgres = "embedded";
    }
  }
  let redis: TestServices["redis"] = "given";
  if (!env.TEST_REDIS_URL) {
    if (await redisAnswers(SYSTEM_REDIS)) redis = "system";
    else {
      const port = String(await freePort());
      const local = await redisForStart({ redisUrlDefaulted: true, redisUrl: "", dataDir: DATA_DIR }, logger, {
        LOCAL_REDIS_PORT: port,
      });
      if (local.stop) stops.push(local.stop);
      env.TEST_REDIS_URL = local.url;
      redis = "local";
    }
  }
  return { postgres, redis };
}
