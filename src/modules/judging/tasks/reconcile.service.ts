import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import type { JudgingSettings } from "../../../settings/config";
import type { JobClient } from "../../../jobs/job-client";
import type { ReconcileReport } from "../../../jobs/catalogue";
import type { Logger } from "../../../core/logger";
import { enqueueJudging } from "./judge-queue";
import { announceRecordChange } from "../../record-events/record-events.bus";
import { pendingCase, type StoredCase } from "../record-states";
import { lapsedLeasesSql, waitingPageSql } from "../judging.sql";
import * as transitions from "../record-transitions";

/** A waiting record this young may still be on its way to Redis from the API that just saved it. */
const ENQUEUE_GRACE_SECONDS = 5;
const BATCH = 500;

function abandonedCase(attempts: number, leaseSeconds: number): StoredCase {
  return {
    ...pendingCase(),
    state: "system_error",
    stderr:
      `Judging was abandoned ${attempts} time(s): each judger stopped reporting for ${leaseSeconds} s, so its ` +
      `lease lapsed. ` +
      "The record is marked failed; it was not judged.",
  };
}

/**
 * Keeps every submission moving, with PostgreSQL as the source of truth:
 * 1. a working record whose lease lapsed goes back to the queue under a new task id (the old judger's
 *    reports are refused from then on), or ends `failed` once it used up its attempts;
 * 2. a waiting record without a live job (a crash between commit and enqueue, a Redis flush, a judger
 *    that gave up) is enqueued again under a new task id.
 * Either is enqueued at the priority stored on the record (a bulk rejudge's stays low).
 * Each change is a conditional UPDATE, so concurrent reconcilers and judgers never double-act.
 */
export async function reconcileRecords(
  em: EntityManager,
  jobs: JobClient,
  logger: Logger,
  settings: JudgingSettings,
): Promise<ReconcileReport> {
  const report: ReconcileReport = { requeued: 0, failed: 0, reenqueued: 0 };
  const lapsed = await em.execute<{ id: string; attempts: number }[]>(lapsedLeasesSql(BATCH));
  for (const { id, attempts } of lapsed) {
    if (attempts >= settings.maxAttempts) {
      const failed = await transitions.exhaust(em, id, abandonedCase(attempts, settings.leaseSeconds));
      if (failed) {
        report.failed++;
        void announceRecordChange(jobs, logger, failed.domain_id, id);
        logger.warn("record failed: judging abandoned too often", { recordId: id, attempts });
      }
      continue;
    }
    const taskId = randomUUID();
    const requeued = await transitions.requeueLapsed(em, id, taskId);
    if (requeued) {
      report.requeued++;
      logger.info("lease lapsed; record re-queued", { recordId: id, attempts, taskId });
      await enqueueJudging(jobs, logger, {
        recordId: id,
        domainId: requeued.domain_id,
        taskId,
        priority: requeued.priority,
      });
    }
  }
  report.reenqueued = await reenqueueLost(em, jobs, logger);
  return report;
}

/**
 * Every waiting record without a live job, however long the backlog: the waiting records are read in
 * pages by keyset (updated_at, id), and each page's jobs are looked up in Redis at once.
 */
async function reenqueueLost(em: EntityManager, jobs: JobClient, logger: Logger): Promise<number> {
  let reenqueued = 0;
  // The position as PostgreSQL's own text: a JavaScript Date would drop the microseconds and skip rows.
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const page: { id: string; task_id: string | null; at: string }[] = await em.execute(waitingPageSql(BATCH), [
      ENQUEUE_GRACE_SECONDS,
      after?.at ?? null,
      after?.at ?? null,
      after?.id ?? null,
    ]);
    if (page.length === 0) return reenqueued;
    const live = await Promise.all(page.map((row) => (row.task_id ? jobs.isLive("judge", row.task_id) : false)));
    for (const [i, { id, task_id: oldTask }] of page.entries()) {
      if (live[i]) continue;
      // A new task id: the old job id may still sit among finished jobs, where an add would be ignored.
      const taskId = randomUUID();
      const queued = await transitions.reenqueue(em, id, oldTask, taskId);
      // At the priority it was queued at: a lost bulk-rejudge task stays behind new submissions.
      const task = queued ? { recordId: id, domainId: queued.domain_id, taskId, priority: queued.priority } : null;
      if (task && (await enqueueJudging(jobs, logger, task))) {
        reenqueued++;
        logger.info("record had no live job; enqueued again", { recordId: id, taskId });
      }
    }
    if (page.length < BATCH) return reenqueued;
    const last = page[page.length - 1];
    after = { at: last.at, id: last.id };
  }
}
