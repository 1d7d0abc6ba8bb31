import { Queue, type ConnectionOptions, type JobsOptions } from "bullmq";
import type { Config } from "../config";

/**
 * The job catalogue: which queues exist, which jobs run on each and what their payloads are.
 * `enqueue()` is the only way the API touches BullMQ. Features add their jobs to `JobCatalogue`
 * (records: `record.judge` on `judge`; configs: `config.unpack` on `configs`), and each worker's
 * handler table must then cover them (a missing handler is a compile error, see workers/).
 */
export const QUEUE_NAMES = ["judge", "configs"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type ConfigJsonOnMissing = "raise_error" | "use_old" | "use_default";

/** Unpack an uploaded archive (a blob) into a new config version of a problem. */
export interface ConfigUnpackPayload {
  problemId: string;
  uploadDigest: string;
  committerId: string;
  configJsonOnMissing: ConfigJsonOnMissing;
}

export interface JobCatalogue {
  "config.unpack": { queue: "configs"; payload: ConfigUnpackPayload; result: { configId: string } };
  /** Deletes config versions and blobs nothing references any more (scheduled by the configs worker). */
  "blob.collect": { queue: "configs"; payload: { graceSeconds?: number }; result: { versions: number; blobs: number } };
}

export type JobName = keyof JobCatalogue & string;
export type JobsOn<Q extends QueueName> = { [N in JobName]: JobCatalogue[N] extends { queue: Q } ? N : never }[JobName];
export type PayloadOf<N extends JobName> = JobCatalogue[N] extends { payload: infer P } ? P : never;
export type ResultOf<N extends JobName> = JobCatalogue[N] extends { result: infer R } ? R : never;

/** BullMQ opens (and closes) its own connections from these options: a shared client would never be quit. */
export function queueConnection(config: Pick<Config, "redisUrl">): ConnectionOptions {
  return { url: config.redisUrl, maxRetriesPerRequest: null } as ConnectionOptions;
}

export type Queues = Record<QueueName, Queue>;

export function createQueues(config: Pick<Config, "redisUrl" | "queuePrefix">): Queues {
  const connection = queueConnection(config);
  return Object.fromEntries(
    QUEUE_NAMES.map((name) => [name, new Queue(name, { connection, prefix: config.queuePrefix })]),
  ) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}

export async function enqueue<N extends JobName>(
  queues: Queues,
  name: N,
  payload: PayloadOf<N>,
  options: JobsOptions & { queue: QueueName },
): Promise<void> {
  const { queue, ...jobOptions } = options;
  await queues[queue].add(name, payload, jobOptions);
}
