/**
 * The problem configs' hand-written SQL: versions and the blob ledger. tests/db/statements-prepare.test.ts
 * prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/** Serialises commits of one problem's config versions. Parameter: the lock's key (text). */
export const VERSION_LOCK_SQL = "select pg_advisory_xact_lock(hashtextextended(?, 0))";

/**
 * Tables whose `config_id` pins a config version for as long as a row points at it. Versions of
 * deleted problems that nothing pins are collected. (Static on purpose: the collector must know every
 * pin even in a process that never loads the module owning the table.)
 */
export const CONFIG_PINS: readonly { table: string }[] = [{ table: "records" }];

/**
 * Tables whose `digest` column keeps a blob alive: config files, submitted files, problems' attachments, and
 * runs' files (until the run expires).
 */
export const BLOB_REFS: readonly { table: string }[] = [
  { table: "problem_config_files" },
  { table: "record_files" },
  { table: "problem_attachments" },
  { table: "run_files" },
];

/** A blob's ledger row, refreshed to "now" when it exists. Parameters: digest, size. */
export const STORE_BLOB_SQL =
  `insert into blobs (digest, size, created_at) values (?, ?, now()) on conflict (digest) do update set ` +
  `created_at = now()`;

/**
 * Many blobs' ledger rows at once, as STORE_BLOB_SQL. Parameters: digests (distinct), sizes; each a list that
 * `em.execute` spells out inside `array[…]`, so the statement works in a transaction and out of one.
 */
export const STORE_BLOBS_SQL =
  `insert into blobs (digest, size, created_at) select d, s, now() ` +
  `from unnest(array[?]::text[], array[?]::bigint[]) u(d, s) ` +
  `on conflict (digest) do update set created_at = now()`;

/** Deletes the config versions of deleted problems that nothing pins (CONFIG_PINS), returning their ids. */
export const collectVersionsSql = () => {
  const pinned = CONFIG_PINS.map(
    ({ table }) => `and not exists (select 1 from "${table}" x where x.config_id = c.id)`,
  ).join(" ");
  return `delete from problem_configs c where c.problem_id is null ${pinned} returning c.id`;
};

/** No table references the blob `b` (BLOB_REFS). */
const unreferenced = () =>
  BLOB_REFS.map(({ table }) => `and not exists (select 1 from "${table}" f where f.digest = b.digest)`).join(" ");

/** Unreferenced blobs older than the grace. Parameter: the grace in seconds. */
export const collectableBlobsSql = () =>
  `select b.digest from blobs b where b.created_at < now() - make_interval(secs => ?) ${unreferenced()}`;

/** Deletes a blob's ledger row if it is still unreferenced and old. Parameters: digest, the grace in seconds. */
export const deleteBlobSql = () =>
  `delete from blobs b where b.digest = ? and b.created_at < now() - make_interval(secs => ?) ` +
  `${unreferenced()} returning b.digest`;

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  VERSION_LOCK_SQL,
  STORE_BLOB_SQL,
  STORE_BLOBS_SQL,
  collectVersionsSql(),
  collectableBlobsSql(),
  deleteBlobSql(),
];
