import { join } from "node:path";
import { defineConfig } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { entities } from "./entities";
import { sessionOptions } from "../db/statements";

/**
 * One ORM configuration for the server, the workers, the CLI (`bun run db:*`) and the tests. The
 * database comes from DATABASE_URL; the CLI falls back to a local default so `migration:create` works
 * on a developer machine.
 */
export function ormConfig(databaseUrl: string, options: { debug?: boolean; poolMax?: number } = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    debug: options.debug ?? false,
    pool: { min: 0, max: options.poolMax ?? 10 },
    // No JIT compilation, and one generic plan per prepared statement. The second reaches only the hot
    // reads of src/db/statements.ts: MikroORM sends its queries with the values in the text, without
    // parameters, so each is planned once anyway. PostgreSQL's default re-plans a statement whose generic
    // plan it estimates dearer than a custom one, and a LIMIT parameter is estimated at a tenth of the
    // table, so every record list was planned anew (0.7 ms of its 1.5 ms of PostgreSQL's CPU); those
    // statements are written so that the generic plan is the right one whatever the values (see
    // record-list.ts). The same estimate crossed the JIT threshold at a million records, where each
    // execution compiled code for a plan that reads 100 rows.
    driverOptions: { options: sessionOptions() },
    // Timestamps are instants: always timestamptz, always UTC on the wire.
    forceUtcTimezone: true,
    migrations: {
      // From this file, not the working directory: a process started elsewhere found no migrations and
      // recorded an empty schema as migrated (a test template without tables).
      path: join(import.meta.dir, "../../migrations"),
      emit: "ts",
      // The default snapshot name embeds the database name, which differs per test database.
      snapshotName: ".snapshot",
      transactional: true,
      allOrNothing: true,
    },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/joj");
