import { defineEntity, p, type InferEntity } from "@mikro-orm/core";

/**
 * The ledger of stored blobs. The blob store holds bytes; this table records when each digest
 * arrived, so garbage collection can delete blobs that nothing references and that are older than
 * a grace period (a fresh upload is not yet referenced by the version it is about to become).
 */
export const Blob = defineEntity({
  name: "Blob",
  tableName: "blobs",
  properties: {
    digest: p.string().length(64).primary(),
    size: p.bigint("number"),
    createdAt: p
      .datetime()
      .defaultRaw("now()")
      .onCreate(() => new Date()),
  },
});

export type Blob = InferEntity<typeof Blob>;
