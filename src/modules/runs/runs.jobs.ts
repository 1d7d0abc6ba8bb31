import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import type { JobClient } from "../../jobs/job-client";
import type { RunHousekeepingReport } from "../../jobs/catalogue";
import type { Logger } from "../../core/logger";
import type { JudgingSettings } from "../../settings/config";
import { row, rows } from "../../db/statements";
import { pendingCase } from "../judging/record-states";
import { enqueueRunJudging } from "../judging/tasks/judge-queue";
import { announceRecordChange, runChange } from "../record-events/record-events.bus";
import {
  EXHAUST_RUN_SQL,
  EXPIRE_RUNS_SQL,
  LAPSED_RUNS_SQL,
  QUEUED_RUNS_SQL,
  REENQUEUE_RUN_SQL,
  REQUEUE_RUN_SQL,
} from "./runs.sql";

/** A queued run this young may still be on its way to Redis from the API that just saved it. */
const ENQUEUE_GRACE_SECONDS = 5;

type Moved = { domain_id: string; owner_id: string };

/**
 * The runs' housekeeping, a pass of the configs worker (the housekeeper) as often as the records'
 * reconciler: runs past RUNS_KEEP_MINUTES deleted with their files (their blobs then unreferenced, for the
 * collector); a lapsed lease put back in the queue, or `failed` once it used up its attempts; a queued run
 * without a live job enqueued again. Each change is a conditional UPDATE, as for records.
 */
export async function houseKeepRuns(
  em: EntityManager,
  jobs: JobClient,
  logger: Logger,
  settings: JudgingSettings,
): Promise<RunHousekeepingReport> {
  const report: RunHousekeepingReport = { expired: 0, requeued: 0, failed: 0, reenqueued: 0 };
  for (;;) {
    const gone = await rows<{ id: string }>(em, EXPIRE_RUNS_SQL, []);
    report.expired += gone.length;
    if (gone.length < 1000) break;
  }
  const announce = (moved: Moved, id: string) =>
    void announceRecordChange(jobs, logger, moved.domain_id, runChange(id));
  for (const { id, attempts } of await rows<{ id: string; attempts: number }>(em, LAPSED_RUNS_SQL, [])) {
    if (attempts >= settings.maxAttempts) {
      const failed = {
        ...pendingCase(),
        state: "system_error" as const,
        stderr: "the judge stopped reporting; the run was abandoned",
      };
      const moved = await row<Moved>(em, EXHAUST_RUN_SQL, [JSON.stringify([failed]), id]);
      if (moved) {
        report.failed++;
        announce(moved, id);
      }
      continue;
    }
    const taskId = randomUUID();
    const moved = await row<Moved>(em, REQUEUE_RUN_SQL, [taskId, id]);
    if (moved) {
      report.requeued++;
      announce(moved, id);
      await enqueueRunJudging(jobs, logger, { recordId: id, domainId: moved.domain_id, taskId });
    }
  }
  const queued = await rows<{ id: string; task_id: string | null }>(em, QUEUED_RUNS_SQL, [ENQUEUE_GRACE_SECONDS]);
  const live = await Promise.all(queued.map((r) => (r.task_id ? jobs.isLive("judge", r.task_id) : false)));
  for (const [i, { id, task_id: oldTask }] of queued.entries()) {
    if (live[i]) continue;
    const taskId = randomUUID();
    const moved = await row<Moved>(em, REENQUEUE_RUN_SQL, [taskId, id, oldTask]);
    if (moved && (await enqueueRunJudging(jobs, logger, { recordId: id, domainId: moved.domain_id, taskId })))
      report.reenqueued++;
  }
  if (report.expired + report.requeued + report.failed + report.reenqueued > 0) logger.info("runs kept", { ...report });
  return report;
}
