import type { EntityManager } from "@mikro-orm/postgresql";
import { SQL } from "bun";

/**
 * Hot reads as prepared statements, on the pool the ORM already uses (one pool per process).
 *
 * MikroORM pastes values into its SQL text, so PostgreSQL plans every query again: 4–6 ms of planning
 * for a record page, more than it takes to run, and about 1 ms of ORM CPU per `findOne`. A statement
 * here is written once, with `?` placeholders like `em.execute`, and sent by `pg` as a named
 * statement: parsed and planned once per connection, then only bound and executed.
 *
 * Inside a transaction a statement goes through the EntityManager instead, so it sees (and is part
 * of) the transaction; outside one it needs no EntityManager state at all.
 */
/** What is used of `pg`'s Pool (the package ships no types). */
interface Pool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface Prepared {
  name: string;
  text: string;
}

const prepared = new Map<string, Prepared>();
const pools = new WeakMap<object, Promise<Pool>>();

/** `?` placeholders become `$1…`; the SQL of hot reads holds no `?` operator and no string literal with one. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function prepare(sql: string): Prepared {
  let statement = prepared.get(sql);
  if (!statement) {
    statement = { name: `joj_${Bun.hash(sql).toString(36)}`, text: numbered(sql) };
    prepared.set(sql, statement);
  }
  return statement;
}

function poolOf(em: EntityManager): Promise<Pool> {
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) {
    pool = connection.getNativeClient() as unknown as Promise<Pool>;
    pools.set(connection, pool);
  }
  return pool;
}

/** The rows of a read, as `em.execute` would return them (same type parsers: timestamps as text). */
export async function rows<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T[]> {
  if (em.isInTransaction()) return em.execute<T[]>(sql, [...values]);
  const { name, text } = prepare(sql);
  const result = await (await poolOf(em)).query({ name, text, values: values as unknown[] });
  return result.rows as T[];
}

/**
 * The settings every connection of the app runs with: the ORM's pool (mikro-orm.config.ts) and the read
 * pool below. Why each: mikro-orm.config.ts.
 */
export const SESSION_SETTINGS = { jit: "off", plan_cache_mode: "force_generic_plan" } as const;
export const sessionOptions = () =>
  Object.entries(SESSION_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");

const readPools = new WeakMap<object, SQL>();
const readPoolSizes = new WeakMap<object, number>();
const READ_CONNECT_SECONDS = 5;

/** The read pool's size for an ORM's connection (DATABASE_READ_POOL_SIZE), before its first read. */
export function sizeReadPool(em: EntityManager, max: number): void {
  readPoolSizes.set(em.getConnection(), max);
}

function readPool(em: EntityManager): SQL {
  const connection = em.getConnection();
  let pool = readPools.get(connection);
  if (!pool) {
    const max = readPoolSizes.get(connection) ?? (em.config.get("pool") as { max?: number } | undefined)?.max ?? 10;
    // A connection that cannot be made is given up after READ_CONNECT_SECONDS (Bun retries until then):
    // during an outage a request gets its 503 in seconds, not after Bun's default 30.
    pool = new SQL(em.config.get("clientUrl") as string, {
      max,
      idleTimeout: 30,
      connectionTimeout: READ_CONNECT_SECONDS,
      connection: { ...SESSION_SETTINGS },
    });
    readPools.set(connection, pool);
  }
  return pool;
}

/**
 * The hottest reads (every request's caller and standing, the record and problem pages, the record
 * list) through Bun's own PostgreSQL client, prepared per connection like `rows`: `pg` over Bun's
 * socket layer cost ~110 µs of this process's CPU for `/users/me`'s one statement, half of the request
 * (bench:reads LOAD=wrk). Its own pool beside the ORM's, of the same size and settings, closed with the
 * ORM (database.ts). For reads whose parameters are text, numbers, booleans or array literals, and whose
 * callers take a timestamp column as a Date (Bun parses them) as well as text; inside a transaction
 * they go through the EntityManager like any statement.
 */
export async function readRows<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T[]> {
  if (em.isInTransaction()) return rows<T>(em, sql, values);
  return [...(await readPool(em).unsafe(prepare(sql).text, [...values]))] as T[];
}

/** The first row of a hot read (readRows), or null. */
export async function readRow<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T | null> {
  return (await readRows<T>(em, sql, values))[0] ?? null;
}

/** Closes the read pool of an ORM's connection, if it has one. */
export async function closeReadPool(em: EntityManager): Promise<void> {
  const connection = em.getConnection();
  const pool = readPools.get(connection);
  readPools.delete(connection);
  await pool?.close();
}

/** The first row of a read, or null. */
export async function row<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T | null> {
  return (await rows<T>(em, sql, values))[0] ?? null;
}

/**
 * A timestamptz as Horse writes it (`2026-11-24T02:00:00.123+00:00`), made by PostgreSQL: the same
 * text as `isoTime` (both cut to milliseconds), without a Date per field in JavaScript.
 */
export const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')`;
