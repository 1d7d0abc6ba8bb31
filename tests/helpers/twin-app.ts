import { appOver, type TestApp } from "./spawn-app";

/**
 * A second API over `t`'s database, Redis (same key prefix), queue prefix, blob storage and settings, as a
 * replica behind the same load balancer is: its own pool, Redis connection, job client and logs, made by the
 * same assembly. Nothing is created or migrated; its close() leaves the database and storage to `t`.
 * Module-level state (the board and token caches) is shared with `t`, being one process.
 */
export async function spawnTwin(t: TestApp, options: { configsWorker?: boolean } = {}): Promise<TestApp> {
  // The same key prefix as t's: rate and login limits live under it, as under no prefix in production.
  // A second configs worker, when asked, competes with t's for the same jobs, as two housekeepers do.
  return appOver(t.config, {
    poolMax: 5,
    keyPrefix: String(t.redis.options.keyPrefix),
    configsWorker: options.configsWorker,
    context: { twin: true },
  });
}
