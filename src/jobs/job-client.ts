import { QueueEvents, type JobsOptions } from "bullmq";
import type Redis from "ioredis";
import type { Config } from "../settings/config";
import {
  closeQueues,
  createQueues,
  queueConnection,
  type JobName,
  type PayloadOf,
  type QueueName,
  type Queues,
  type ResultOf,
} from "./catalogue";
import { jobFailureToError } from "./job-failure";
import { BizError } from "../core/errors";

/**
 * The API's only door to BullMQ: enqueue a job, or enqueue one and wait (bounded) for its result.
 * A failed job's error comes back as the business error the handler raised.
 */
export class JobClient {
  readonly queues: Queues;
  private readonly events = new Map<QueueName, QueueEvents>();
  private readonly closing: (() => Promise<void>)[] = [];

  /**
   * The queues' own Redis connection, for the few keys that live beside the queues (record events,
   * bulk-rejudge locks). BullMQ's backend interface lists only the commands BullMQ uses; it is ioredis.
   */
  async commands(): Promise<Redis> {
    return (await this.queues.judge.getBackend().client) as unknown as Redis;
  }

  /** The key prefix of every queue key, and of the keys that live beside the queues (record events). */
  get queuePrefix(): string {
    return this.config.queuePrefix;
  }

  constructor(private readonly config: Pick<Config, "redisUrl" | "queuePrefix">) {
    this.queues = createQueues(config);
  }

  async enqueue<N extends JobName>(
    name: N,
    payload: PayloadOf<N>,
    options: JobsOptions & { queue: QueueName },
  ): Promise<string> {
    const { queue, ...jobOptions } = options;
    const job = await this.queues[queue].add(name, payload, jobOptions);
    return job.id ?? "";
  }

  /** Several jobs of one queue in one round trip (BullMQ's addBulk: added together or not at all). */
  async enqueueBulk<N extends JobName>(
    queue: QueueName,
    batch: { name: N; payload: PayloadOf<N>; options: JobsOptions }[],
  ): Promise<void> {
    await this.queues[queue].addBulk(
      batch.map(({ name, payload, options }) => ({ name, data: payload, opts: options })),
    );
  }

  /**
   * Whether a job is still on its way to a worker or being worked on. A finished, failed or vanished
   * job (a Redis flush) is not live.
   */
  async isLive(queue: QueueName, jobId: string): Promise<boolean> {
    const state = await this.queues[queue].getJobState(jobId);
    return (
      state === "waiting" ||
      state === "active" ||
      state === "delayed" ||
      state === "prioritized" ||
      state === "waiting-children"
    );
  }

  async run<N extends JobName>(
    name: N,
    payload: PayloadOf<N>,
    options: { queue: QueueName; timeoutMs: number; jobId?: string },
  ): Promise<ResultOf<N>> {
    const events = await this.eventsOf(options.queue);
    const job = await this.queues[options.queue].add(name, payload, {
      jobId: options.jobId,
      removeOnComplete: 1000,
      removeOnFail: 1000,
    });
    try {
      return (await job.waitUntilFinished(events, options.timeoutMs)) as ResultOf<N>;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out/i.test(message)) {
        throw new BizError("Error", "the job is still running; look again in a moment");
      }
      throw jobFailureToError(message);
    }
  }

  private async eventsOf(queue: QueueName): Promise<QueueEvents> {
    let events = this.events.get(queue);
    if (!events) {
      events = new QueueEvents(queue, { connection: queueConnection(this.config), prefix: this.config.queuePrefix });
      this.events.set(queue, events);
      await events.waitUntilReady();
    }
    return events;
  }

  /** Work to finish while Redis is still open, such as announcements waiting to be sent together. */
  beforeClose(step: () => Promise<void>): void {
    this.closing.push(step);
  }

  async close(): Promise<void> {
    await Promise.all(this.closing.map((step) => step()));
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await closeQueues(this.queues);
  }
}
