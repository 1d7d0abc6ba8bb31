import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { EntityManager } from "@mikro-orm/postgresql";
import { cpus } from "node:os";
import { loadConfig, type Config } from "../src/settings/config";
import { createLogger, type Logger } from "../src/core/logger";
import type { Orm } from "../src/db/orm";
import { queueConnection, type JobsOn, type PayloadOf, type QueueName } from "../src/jobs/catalogue";
import { JobClient } from "../src/jobs/job-client";
import type { BlobStore } from "../src/storage/blob-store";
import { createBlobStore } from "../src/storage/create-blob-store";
import { connectPostgres } from "../src/server/database";
import { connectRedis, exitOnStartupError } from "../src/core/startup";
import { onShutdown } from "../src/core/shutdown";

export interface JobContext {
  config: Config;
  jobs: JobClient;
  em: EntityManager;
  store: BlobStore;
  logger: Logger;
  job: Job;
}

/** One handler per job of the queue: the table is typed so that a job without a handler does not compile. */
export type HandlerTable<Q extends QueueName> = {
  [N in JobsOn<Q>]: (payload: PayloadOf<N>, ctx: JobContext) => Promise<unknown>;
};

export interface WorkerDeps {
  config: Config;
  orm: Orm;
  logger: Logger;
  store: BlobStore;
  /** For handlers that enqueue (the reconciler). */
  jobs: JobClient;
}

/** A BullMQ worker on one queue, each job with its own forked EntityManager. Used by the entrypoints and the tests. */
export function createQueueWorker<Q extends QueueName>(
  queue: Q,
  handlers: HandlerTable<Q>,
  deps: WorkerDeps,
  concurrency: number,
): Worker {
  const { config, orm, logger, store, jobs } = deps;
  const table = handlers as Record<string, (payload: unknown, ctx: JobContext) => Promise<unknown>>;
  const worker = new Worker(
    queue,
    async (job) => {
      const handler = table[job.name];
      if (!handler)
        throw new UnrecoverableError(`no handler for job "${job.name}" on queue "${queue}" in this worker version`);
      return handler(job.data, {
        config,
        jobs,
        em: orm.em.fork(),
        store,
        logger: logger.child({ job: job.name, jobId: job.id }),
        job,
      });
    },
    { connection: queueConnection(config), prefix: config.queuePrefix, concurrency },
  );
  worker.on("failed", (job, error) =>
    logger.warn("job failed", { job: job?.name, jobId: job?.id, reason: error.message }),
  );
  worker.on("error", (error) => logger.error("worker error", { error }));
  return worker;
}

/**
 * A worker entrypoint: config → PostgreSQL → Redis → BullMQ worker on one queue; SIGTERM lets running
 * jobs finish (bounded) before the pools close.
 */
export interface Schedule<Q extends QueueName> {
  id: string;
  /** A fixed period, or one read from the settings. */
  everyMs: number | ((config: Config) => number);
  name: JobsOn<Q>;
  data: object;
}

export async function runWorker<Q extends QueueName>(
  queue: Q,
  handlers: HandlerTable<Q>,
  schedules: Schedule<Q>[] = [],
): Promise<void> {
  const bootLogger = createLogger("info", { service: `worker:${queue}` });
  try {
    const config = loadConfig(process.env, "worker");
    const logger = createLogger(config.logLevel, { service: `worker:${queue}` }, { format: config.logFormat });
    const { poolSize, readPoolSize } = config.database;
    const orm = await connectPostgres(config.databaseUrl, { poolMax: poolSize, readPoolMax: readPoolSize });
    // Fails fast with a clear message when Redis is down, before BullMQ starts retrying silently.
    await (await connectRedis(config.redisUrl)).quit();
    const concurrency = Number(process.env.WORKER_CONCURRENCY ?? cpus().length) || 1;
    const jobs = new JobClient(config);
    const worker = createQueueWorker(
      queue,
      handlers,
      { config, orm, logger, store: createBlobStore(config.storage), jobs },
      concurrency,
    );
    // Handlers first: a SIGTERM that arrives right after "ready" must still stop cleanly.
    onShutdown(logger, config.shutdownTimeoutMs, [
      { name: "worker", run: () => worker.close() },
      { name: "queues", run: () => jobs.close() },
      { name: "postgres", run: () => orm.close() },
    ]);
    await worker.waitUntilReady();
    await upsertSchedules(queue, schedules, config);
    logger.info("worker ready", { queue, concurrency, jobs: Object.keys(handlers) });
  } catch (error) {
    exitOnStartupError(bootLogger, error);
  }
}

/**
 * Repeating jobs: upserted by id, so any number of worker replicas keep exactly one schedule each, and each
 * period's job (id `repeat:<id>:<time>`) is taken by one of them (exported for tests).
 */
export async function upsertSchedules<Q extends QueueName>(
  queue: Q,
  schedules: Schedule<Q>[],
  config: Config,
): Promise<void> {
  if (schedules.length === 0) return;
  const scheduler = new Queue(queue, { connection: queueConnection(config), prefix: config.queuePrefix });
  try {
    for (const schedule of schedules) {
      await scheduler.upsertJobScheduler(
        schedule.id,
        { every: typeof schedule.everyMs === "number" ? schedule.everyMs : schedule.everyMs(config) },
        { name: schedule.name, data: schedule.data },
      );
    }
  } finally {
    await scheduler.close();
  }
}
