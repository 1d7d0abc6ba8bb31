import type { JobClient } from "../../jobs/job-client";
import type { Logger } from "../../logger";
import { announceTask } from "./judge-tasks.service";

/** How many finished judge jobs BullMQ keeps for inspection; the record is the lasting history. */
const KEEP_FINISHED = { count: 10_000 };
/** BullMQ waits for Redis forever; a submission answers within this even when Redis is down. */
const ENQUEUE_TIMEOUT_MS = 2_000;

/**
 * Puts a record's current task on the judge queue. Called only after the record (with this task id)
 * is committed; the job id is the task id, so a repeated enqueue of the same task collapses into one
 * job. A failure is logged, not raised: the record is safe in PostgreSQL and the reconciler enqueues
 * it once Redis answers again.
 */
export async function enqueueJudging(
  jobs: JobClient,
  logger: Logger,
  task: { recordId: string; domainId: string; taskId: string },
): Promise<boolean> {
  // Judgers long-polling this process (HTTP mode) need no Redis to hear of it.
  announceTask();
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([
        jobs.enqueue("record.judge", task, { queue: "judge", jobId: task.taskId, removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FINISHED }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
    return true;
  } catch (error) {
    logger.warn("record saved but not enqueued; the reconciler will enqueue it", { recordId: task.recordId, error });
    return false;
  }
}
