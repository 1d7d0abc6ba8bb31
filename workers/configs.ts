import { runWorker, type HandlerTable } from "./run-worker";
import { unpackConfigArchive } from "../src/modules/problem-configs/configs.jobs";
import { collectGarbage } from "../src/modules/problem-configs/blobs.service";
import { reconcileRecords } from "../src/modules/judge-tasks/reconcile.service";

/** The configs queue's jobs (exported for tests, which run them in-process on a real queue). */
export const configsHandlers: HandlerTable<"configs"> = {
  "config.unpack": (payload, ctx) => unpackConfigArchive(payload, ctx),
  "blob.collect": (payload, ctx) => collectGarbage(ctx.em, ctx.store, payload.graceSeconds),
  "record.reconcile": (_payload, ctx) => reconcileRecords(ctx.em, ctx.jobs, ctx.logger, ctx.config.judging),
};

const HOUR_MS = 3_600_000;

/**
 * `bun run worker:configs`, the housekeeper: unpacks uploaded config archives, collects unreferenced
 * blobs hourly, and runs the records reconciler (lapsed leases, records without a live job).
 */
if (import.meta.main) {
  await runWorker("configs", configsHandlers, [
    { id: "blob-collect-hourly", everyMs: HOUR_MS, name: "blob.collect", data: {} },
    { id: "record-reconcile", everyMs: (config) => config.judging.reconcileEverySeconds * 1000, name: "record.reconcile", data: {} },
  ]);
}
