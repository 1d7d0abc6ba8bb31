import { Worker } from "bullmq";
import { JUDGE_JOB, JUDGE_QUEUE, queueConnection } from "../core/judge-protocol";
import type { Logger } from "../core/logger";
import type { JudgeApi, JudgeTask } from "./api/judge-api";
import { judgeTask, type EngineDeps, type Outcome } from "./record/judge-record";
import type { SlotPool } from "./sandbox/slots";

/**
 * Where a judge's tasks come from, and how it stops. Both sources feed the same engine through the
 * same slots; `stop()` stops taking tasks, lets running records finish for the grace period, then
 * gives the rest back.
 */
export interface TaskSource {
  stop(graceMs: number): Promise<void>;
}

class Running {
  private readonly inFlight = new Set<Promise<Outcome>>();
  readonly halt = new AbortController();

  constructor(
    private readonly pool: SlotPool,
    private readonly deps: EngineDeps,
  ) {}

  async run(task: JudgeTask): Promise<Outcome> {
    const slot = await this.pool.acquire();
    const work = judgeTask(task, slot, this.deps, this.halt.signal).finally(() => this.pool.release(slot));
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /** Waits for running records up to the grace period, then aborts them (they are given back). */
  async drain(graceMs: number): Promise<void> {
    const all = Promise.allSettled([...this.inFlight]);
    const timer = setTimeout(() => this.halt.abort(), graceMs);
    await all;
    clearTimeout(timer);
  }
}

/** Queue mode: a BullMQ worker on the judge queue, one job per task, `concurrency` at once. */
export function startQueueSource(
  options: { redisUrl: string; queuePrefix: string; concurrency: number },
  pool: SlotPool,
  deps: EngineDeps,
): TaskSource & { ready: Promise<void> } {
  const running = new Running(pool, deps);
  const worker = new Worker(
    JUDGE_QUEUE,
    async (job) => {
      if (job.name === JUDGE_JOB.run) return running.run({ ...(job.data as JudgeTask), kind: "run" });
      if (job.name !== JUDGE_JOB.record) throw new Error(`the judge takes record and run jobs, not ${job.name}`);
      return running.run(job.data as JudgeTask);
    },
    { connection: queueConnection(options), prefix: options.queuePrefix, concurrency: options.concurrency },
  );
  worker.on("failed", (job, error) =>
    deps.logger.warn("judge job failed; the reconciler re-enqueues its record", {
      jobId: job?.id,
      reason: error.message,
    }),
  );
  worker.on("error", (error) => deps.logger.error("judge queue error", { error }));
  return {
    ready: worker.waitUntilReady().then(() => undefined),
    async stop(graceMs) {
      const closing = worker.close();
      await running.drain(graceMs);
      await closing;
    },
  };
}

const POLL_SECONDS = 25;
const ERROR_PAUSE_MS = 2_000;

/** HTTP mode: `concurrency` loops, each long-polling the API for the next task and judging it. */
export function startHttpSource(
  api: JudgeApi,
  concurrency: number,
  pool: SlotPool,
  deps: EngineDeps,
  logger: Logger,
): TaskSource {
  const running = new Running(pool, deps);
  const polling = new AbortController();
  const loop = async () => {
    while (!polling.signal.aborted) {
      try {
        const task = await api.nextTask(POLL_SECONDS, polling.signal);
        if (task && !polling.signal.aborted) await running.run(task);
      } catch (error) {
        if (polling.signal.aborted) break;
        logger.warn("polling for tasks failed; retrying", { error });
        await Bun.sleep(ERROR_PAUSE_MS);
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    async stop(graceMs) {
      polling.abort();
      await running.drain(graceMs);
      await Promise.allSettled(loops);
    },
  };
}
