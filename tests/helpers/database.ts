import { SQL } from "bun";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Orm } from "../../src/db/orm";
import { createOrm, migrate } from "../../src/server/database";

/**
 * Test databases: a template is built once from the real migrations (named after a hash of the
 * migration files, so a changed migration builds a new template), and every test file gets its own
 * clone of it (`CREATE DATABASE … TEMPLATE …`, tens of milliseconds).
 */
export const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const MIGRATIONS_DIR = join(import.meta.dir, "../../migrations");
const TEMPLATE_LOCK = 0x4a4f4a7e;

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".ts"))
    .sort()) {
    hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
  }
  return hash.digest("hex").slice(0, 12);
}

async function withAdmin<T>(work: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL(ADMIN_URL, { max: 1 });
  try {
    return await work(sql);
  } finally {
    await sql.close();
  }
}

/** Builds the template for the current migrations unless it exists; safe when test processes race. */
export async function ensureTemplate(): Promise<string> {
  const template = `joj_test_template_${migrationsHash()}`;
  await withAdmin(async (sql) => {
    await sql`select pg_advisory_lock(${TEMPLATE_LOCK})`;
    try {
      const [row] = await sql`select 1 as present from pg_database where datname = ${template}`;
      if (row) return;
      await sql.unsafe(`create database "${template}"`);
      const orm = await createOrm(urlFor(template), { poolMax: 1 });
      try {
        await migrate(orm);
      } catch (error) {
        await orm.close(true);
        await sql.unsafe(`drop database "${template}"`);
        throw error;
      }
      await orm.close(true);
      await sql.unsafe(`alter database "${template}" with is_template true`);
    } finally {
      await sql`select pg_advisory_unlock(${TEMPLATE_LOCK})`;
    }
  });
  return template;
}

let counter = 0;

/** A fresh database for one test file, cloned from the template; returns its URL and a dropper. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await ensureTemplate();
  const name = `joj_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await withAdmin((sql) => sql.unsafe(`create database "${name}" template "${template}"`));
  return {
    url: urlFor(name),
    drop: () => withAdmin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}

/**
 * An empty database (no template) migrated up to `migration` and no further, for the test of a later
 * migration over the data an older schema held; returns its ORM and a dropper that closes it.
 */
export async function databaseAtMigration(migration: string): Promise<{ orm: Orm; drop: () => Promise<void> }> {
  const name = `joj_test_at_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await withAdmin((sql) => sql.unsafe(`create database "${name}"`));
  const orm = await createOrm(urlFor(name), { poolMax: 1 });
  await orm.migrator.up({ to: migration });
  return {
    orm,
    drop: async () => {
      await orm.close(true);
      await withAdmin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
    },
  };
}
