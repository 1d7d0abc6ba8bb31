import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../storage/blob-store";
import { sha256Hex } from "../../storage/blob-store";
import {
  collectableBlobsSql,
  collectVersionsSql,
  deleteBlobSql,
  STORE_BLOB_SQL,
  STORE_BLOBS_SQL,
} from "./problem-configs.sql";

/** What pins a config version and what keeps a blob alive (problem-configs.sql.ts, with their statements). */
export { BLOB_REFS, CONFIG_PINS } from "./problem-configs.sql";

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
  await em.execute(STORE_BLOB_SQL, [digest, data.byteLength]);
  await store.put(data, digest);
  return { digest, size: data.byteLength };
}

/** How many blobs storeBlobs writes at once: their syncs to disk overlap (one journal commit serves several). */
const PARALLEL_PUTS = 16;

/**
 * Many blobs stored as storeBlob stores one (the ledger rows first, refreshed to "now"), for a package of
 * thousands of files: the rows in one statement, each digest once and in digest order (so that two such
 * statements lock their rows in the same order), then the bytes of each distinct blob, a few at a time.
 */
export async function storeBlobs(
  em: EntityManager,
  store: BlobStore,
  blobs: Uint8Array[],
): Promise<{ digest: string; size: number }[]> {
  const stored = blobs.map((data) => ({ digest: sha256Hex(data), size: data.byteLength }));
  const distinct = new Map(stored.map(({ digest }, i) => [digest, blobs[i]] as const));
  const digests = [...distinct.keys()].sort();
  await em.execute(STORE_BLOBS_SQL, [digests, digests.map((digest) => distinct.get(digest)!.byteLength)]);
  for (let at = 0; at < digests.length; at += PARALLEL_PUTS)
    await Promise.all(digests.slice(at, at + PARALLEL_PUTS).map((digest) => store.put(distinct.get(digest)!, digest)));
  return stored;
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
  const versions = await em.execute<{ id: string }[]>(collectVersionsSql());
  const candidates = await em.execute<{ digest: string }[]>(collectableBlobsSql(), [graceSeconds]);
  const deleteBlob = deleteBlobSql();
  let blobs = 0;
  for (const { digest } of candidates) {
    const deleted = await em.transactional(async (tx) => {
      const rows = await tx.execute<{ digest: string }[]>(deleteBlob, [digest, graceSeconds]);
      if (rows.length === 0) return false;
      await store.delete(digest);
      return true;
    });
    if (deleted) blobs++;
  }
  return { versions: versions.length, blobs };
}
