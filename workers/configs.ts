import { runWorker, type HandlerTable, type Schedule } from "./run-worker";
import { unpackConfigArchive } from "../src/modules/problem-configs/configs.jobs";
import { collectGarbage } from "../src/modules/problem-configs/blobs.service";
import { reconcileRecords } from "../src/modules/judging/tasks/reconcile.service";
import { countReconcilerPass } from "../src/runtime/metrics";
import { runSimilarityReport } from "../src/modules/similarity/similarity.jobs";
import { readProblemPackage } from "../src/modules/problem-packages/problem-packages.jobs";
import { houseKeepRuns } from "../src/modules/runs/runs.jobs";

/** The configs queue's jobs (exported for tests, which run them in-process on a real queue). */
export const configsHandlers: HandlerTable<"configs"> = {
  "config.unpack": (payload, ctx) => unpackConfigArchive(payload, ctx),
  "blob.collect": (payload, ctx) => collectGarbage(ctx.em, ctx.store, payload.graceSeconds),
  "similarity.report": (payload, ctx) => runSimilarityReport(payload, ctx),
  "package.read": (payload, ctx) => readProblemPackage(payload, ctx),
  "run.housekeep": (_payload, ctx) => houseKeepRuns(ctx.em, ctx.jobs, ctx.logger, ctx.config.judging),
  "record.reconcile": async (_payload, ctx) => {
    const report = await reconcileRecords(ctx.em, ctx.jobs, ctx.logger, ctx.config.judging);
    // Counted in Redis for /metrics (any API process reports them); a miss costs a count, not the pass.
    const redis = await ctx.jobs.commands();
    await countReconcilerPass(redis, ctx.config.queuePrefix, report).catch((error) =>
      ctx.logger.warn("reconciler not counted", { error }),
    );
    return report;
  },
};

const HOUR_MS = 3_600_000;

/**
 * The housekeeper's repeating jobs: unreferenced blobs collected hourly, the records reconciler (lapsed leases,
 * records without a live job) and the runs' housekeeping (expiry, lapsed leases, lost jobs) as often as
 * RECONCILE_EVERY_SECONDS. Fixed ids, so every replica upserts the same schedulers (exported for tests).
 */
export const configsSchedules: Schedule<"configs">[] = [
  { id: "blob-collect-hourly", everyMs: HOUR_MS, name: "blob.collect", data: {} },
  {
    id: "record-reconcile",
    everyMs: (config) => config.judging.reconcileEverySeconds * 1000,
    name: "record.reconcile",
    data: {},
  },
  {
    id: "run-housekeep",
    everyMs: (config) => config.judging.reconcileEverySeconds * 1000,
    name: "run.housekeep",
    data: {},
  },
];

/**
 * `bun run worker:configs`, the housekeeper: unpacks uploaded config archives, reads packages, makes similarity
 * reports, and runs the schedules above.
 */
if (import.meta.main) {
  await runWorker("configs", configsHandlers, configsSchedules);
}
