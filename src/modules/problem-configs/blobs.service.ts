import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../storage/blob-store";
import { sha256Hex } from "../../storage/blob-store";

/**
 * Tables whose `config_id` pins a config version for as long as a row points at it. Versions of
 * deleted problems that nothing pins are collected. (Static on purpose: the collector must know every
 * pin even in a process that never loads the module owning the table.)
 */
export const CONFIG_PINS: readonly { table: string }[] = [{ table: "records" }];

/** Tables whose `digest` column keeps a blob alive: config files and submitted files. */
export const BLOB_REFS: readonly { table: string }[] = [{ table: "problem_config_files" }, { table: "record_files" }];

/** How long an unreferenced blob is kept: longer than any upload takes to become a version. */
export const DEFAULT_BLOB_GRACE_SECONDS = 3600;

/**
 * Stores bytes and records them in the ledger. The ledger row comes first and is refreshed to "now",
 * so the collector never takes a blob that is being (re)used at this moment.
 */
export async function storeBlob(
  em: EntityManager,
  store: BlobStore,
  data: Uint8Array,
): Promise<{ digest: string; size: number }> {
  const digest = sha256Hex(data);
  await em.execute(
    `insert into blobs (digest, size, created_at) values (?, ?, now()) on conflict (digest) do update set ` +
      `created_at = now()`,
    [digest, data.byteLength],
  );
  await store.put(data, digest);
  return { digest, size: data.byteLength };
}

export interface CollectionReport {
  versions: number;
  blobs: number;
}

/**
 * Garbage collection (the `blob.collect` job): first config versions whose problem is gone and that
 * nothing pins, then blobs no version references that are older than the grace period. Each blob is
 * deleted from the store while its ledger row is locked inside a transaction, so a concurrent
 * `storeBlob` of the same bytes waits and then stores them again, never finding them half-deleted.
 */
export async function collectGarbage(
  em: EntityManager,
  store: BlobStore,
  graceSeconds = DEFAULT_BLOB_GRACE_SECONDS,
): Promise<CollectionReport> {
  const pinned = CONFIG_PINS.map(
    ({ table }) => `and not exists (select 1 from "${table}" x where x.config_id = c.id)`,
  ).join(" ");
  const versions = await em.execute<{ id: string }[]>(
    `delete from problem_configs c where c.problem_id is null ${pinned} returning c.id`,
  );
  const unreferenced = BLOB_REFS.map(
    ({ table }) => `and not exists (select 1 from "${table}" f where f.digest = b.digest)`,
  ).join(" ");
  const candidates = await em.execute<{ digest: string }[]>(
    `select b.digest from blobs b where b.created_at < now() - make_interval(secs => ?) ${unreferenced}`,
    [graceSeconds],
  );
  let blobs = 0;
  for (const { digest } of candidates) {
    const deleted = await em.transactional(async (tx) => {
      const rows = await tx.execute<{ digest: string }[]>(
        `delete from blobs b where b.digest = ? and b.created_at < now() - make_interval(secs => ?) ` +
          `${unreferenced} returning b.digest`,
        [digest, graceSeconds],
      );
      if (rows.length === 0) return false;
      await store.delete(digest);
      return true;
    });
    if (deleted) blobs++;
  }
  return { versions: versions.length, blobs };
}
