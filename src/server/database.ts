import { MikroORM } from "@mikro-orm/postgresql";
import { ormConfig } from "./mikro-orm.config";
import type { Orm } from "../db/orm";
import { closeReadPool, sizeReadPool } from "../db/statements";
import { redactUrl, StartupError } from "../core/startup";

/**
 * The server's database: the ORM over this project's entities (mikro-orm.config.ts), connected and
 * proven, and its migrations. A composition file, like app.ts: src/db holds only what knows no feature.
 */

/** Connects and proves the connection works, so a bad DATABASE_URL fails at start-up, not on the first request. */
export async function createOrm(databaseUrl: string, options: PoolSizes = {}): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, options));
  if (options.readPoolMax !== undefined) sizeReadPool(orm.em, options.readPoolMax);
  // The hot reads' pool (db/statements.ts) closes with the ORM, wherever the ORM is closed.
  const close = orm.close.bind(orm);
  orm.close = async (force?: boolean) => {
    await closeReadPool(orm.em);
    return close(force);
  };
  try {
    // The pool connects lazily; one query proves the URL, credentials and database now.
    await orm.em.getConnection().execute("select 1");
  } catch (error) {
    await orm.close(true).catch(() => {});
    throw error;
  }
  return orm;
}

/** The ORM's pool and the hot reads' pool (db/statements.ts; as large as the ORM's unless given). */
export interface PoolSizes {
  poolMax?: number;
  readPoolMax?: number;
}

export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

/** Connects to PostgreSQL, or fails with a message that says what to fix. */
export async function connectPostgres(databaseUrl: string | undefined, options: PoolSizes = {}): Promise<Orm> {
  if (!databaseUrl) {
    throw new StartupError(
      "DATABASE_URL is not set. Set it (postgres://user:pass@host:5432/db), or use `bun run start`, which runs an " +
        "embedded PostgreSQL when it is unset.",
    );
  }
  try {
    return await createOrm(databaseUrl, options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${reason}. Is it running, and is DATABASE_URL right?`,
    );
  }
}
