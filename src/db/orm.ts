import type { MikroORM } from "@mikro-orm/postgresql";

/** The server's ORM; created by src/server/database.ts, which knows the entities. */
export type Orm = MikroORM;

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
