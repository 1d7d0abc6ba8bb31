import type { JobClient } from "../../../jobs/job-client";
import { JUDGE_JOB, type RecordJudgePayload } from "../../../jobs/catalogue";
import type { Logger } from "../../../core/logger";
import { announceTask } from "./judge-tasks.service";
import { announceRecordChange } from "../../record-events/record-events.bus";
import { withTimeout } from "../../../core/timeout";

/** How many finished judge jobs BullMQ keeps for inspection; the record is the lasting history. */
const KEEP_FINISHED = { count: 10_000 };
/** BullMQ waits for Redis forever; a submission answers within this even when Redis is down. */
const ENQUEUE_TIMEOUT_MS = 2_000;

/**
 * The BullMQ priority of a judge task, stored on the record (`records.priority`). BullMQ hands out
 * plain jobs (priority 0, its default) before any prioritized job, and among prioritized jobs the
 * lower number first: submissions, single rejudges and their re-queues are plain; a bulk rejudge
 * waits behind them all, so students' fresh submissions are never starved by it. Runs (a student trying
 * a program on their own input, docs/api.md "Runs") come after every submission, so a deadline rush of
 * runs never delays a verdict that counts, but before a bulk rejudge: a student waits at the screen for
 * a run, while a rejudge of a whole problem is background work that nobody watches case by case.
 */
export const JUDGE_PRIORITY = { normal: 0, run: 5, bulkRejudge: 10 } as const;

/** A task to enqueue: the job's payload and the priority it is queued at (default normal). */
export type QueuedTask = RecordJudgePayload & { priority?: number };

const jobOptions = (task: QueuedTask) => ({
  jobId: task.taskId,
  removeOnComplete: KEEP_FINISHED,
  removeOnFail: KEEP_FINISHED,
  // Priority 0 is left out: BullMQ then keeps the job in its plain wait list, taken first.
  ...(task.priority ? { priority: task.priority } : {}),
});

const withinTimeout = (work: Promise<unknown>) =>
  withTimeout(work, ENQUEUE_TIMEOUT_MS, `Redis did not answer within ${ENQUEUE_TIMEOUT_MS} ms`);

/**
 * Puts a record's current task on the judge queue. Called only after the record (with this task id)
 * is committed; the job id is the task id, so a repeated enqueue of the same task collapses into one
 * job. A failure is logged, not raised: the record is safe in PostgreSQL and the reconciler enqueues
 * it once Redis answers again.
 */
export async function enqueueJudging(jobs: JobClient, logger: Logger, task: QueuedTask): Promise<boolean> {
  // Judgers long-polling this process (HTTP mode) need no Redis to hear of it.
  announceTask();
  // Live streams show the record waiting (again): a submission, a release, a re-queue, a rejudge.
  void announceRecordChange(jobs, logger, task.domainId, task.recordId);
  const { priority: _priority, ...payload } = task;
  try {
    await withinTimeout(jobs.enqueue(JUDGE_JOB.record, payload, { queue: "judge", ...jobOptions(task) }));
    return true;
  } catch (error) {
    logger.warn("record saved but not enqueued; the reconciler will enqueue it", { recordId: task.recordId, error });
    return false;
  }
}

/**
 * Puts a run's current task on the judge queue as a `run.judge` job, at the runs' priority; called after
 * the run is committed. As for a record, a failure is logged and the runs' housekeeping enqueues it again.
 */
export async function enqueueRunJudging(jobs: JobClient, logger: Logger, task: RecordJudgePayload): Promise<boolean> {
  announceTask();
  const payload: RecordJudgePayload = { ...task, kind: "run" };
  try {
    const options = { queue: "judge" as const, ...jobOptions({ ...payload, priority: JUDGE_PRIORITY.run }) };
    await withinTimeout(jobs.enqueue(JUDGE_JOB.run, payload, options));
    return true;
  } catch (error) {
    logger.warn("run saved but not enqueued; the runs' housekeeping will enqueue it", { runId: task.recordId, error });
    return false;
  }
}

/** Many committed tasks in one round trip (a bulk rejudge's batch); a failure is logged as above. */
export async function enqueueJudgingBatch(jobs: JobClient, logger: Logger, tasks: QueuedTask[]): Promise<boolean> {
  if (tasks.length === 0) return true;
  announceTask();
  const byDomain = new Map<string, string[]>();
  for (const task of tasks) byDomain.set(task.domainId, [...(byDomain.get(task.domainId) ?? []), task.recordId]);
  for (const [domainId, records] of byDomain) void announceRecordChange(jobs, logger, domainId, ...records);
  const batch = tasks.map((task) => {
    const { priority: _priority, ...payload } = task;
    return { name: JUDGE_JOB.record, payload, options: jobOptions(task) };
  });
  try {
    await withinTimeout(jobs.enqueueBulk("judge", batch));
    return true;
  } catch (error) {
    logger.warn("records saved but not enqueued; the reconciler will enqueue them", { records: tasks.length, error });
    return false;
  }
}
