import { MikroORM } from "@mikro-orm/postgresql";
import { ormConfig } from "./mikro-orm.config";

export type Orm = MikroORM;

/** Connects and proves the connection works, so a bad DATABASE_URL fails at start-up, not on the first request. */
export async function createOrm(databaseUrl: string, options: { poolMax?: number } = {}): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, options));
  try {
    // The pool connects lazily; one query proves the URL, credentials and database now.
    await orm.em.getConnection().execute("select 1");
  } catch (error) {
    await orm.close(true).catch(() => {});
    throw error;
  }
  return orm;
}

export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

/** What `pg`'s pool reports of itself (the package ships no types). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The pool's connections: open, idle, and queries waiting for one (for /metrics). */
export async function poolUse(orm: Orm): Promise<{ total: number; idle: number; waiting: number }> {
  const pool = (await orm.em.getConnection().getNativeClient()) as unknown as PoolCounts;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** Hides the password of a connection URL before it goes into a message. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}
