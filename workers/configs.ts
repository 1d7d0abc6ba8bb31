import { runWorker, type HandlerTable } from "./run-worker";
import { unpackConfigArchive } from "../src/modules/problem-configs/configs.jobs";
import { collectGarbage } from "../src/modules/problem-configs/blobs.service";

/** The configs queue's jobs (exported for tests, which run them in-process on a real queue). */
export const configsHandlers: HandlerTable<"configs"> = {
  "config.unpack": (payload, ctx) => unpackConfigArchive(payload, ctx),
  "blob.collect": (payload, ctx) => collectGarbage(ctx.em, ctx.store, payload.graceSeconds),
};

const HOUR_MS = 3_600_000;

/** `bun run worker:configs`: unpacks uploaded config archives, and collects unreferenced blobs hourly. */
if (import.meta.main) {
  await runWorker("configs", configsHandlers, [{ id: "blob-collect-hourly", everyMs: HOUR_MS, name: "blob.collect", data: {} }]);
}
