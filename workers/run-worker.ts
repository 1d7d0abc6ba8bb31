import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { EntityManager } from "@mikro-orm/postgresql";
import { loadConfig } from "../src/config";
import { createLogger, type Logger } from "../src/logger";
import { queueConnection, type JobsOn, type PayloadOf, type QueueName } from "../src/jobs/catalogue";
import { connectPostgres, connectRedis, exitOnStartupError } from "../src/runtime/connect";
import { onShutdown } from "../src/runtime/shutdown";
import { cpus } from "node:os";

export interface JobContext {
  em: EntityManager;
  logger: Logger;
  job: Job;
}

/** One handler per job of the queue: the table is typed so that a job without a handler does not compile. */
export type HandlerTable<Q extends QueueName> = { [N in JobsOn<Q>]: (payload: PayloadOf<N>, ctx: JobContext) => Promise<unknown> };

/**
 * A worker entrypoint: config → PostgreSQL → Redis → BullMQ worker on one queue, each job with its own
 * forked EntityManager; SIGTERM lets running jobs finish (bounded) before the pools close.
 */
export async function runWorker<Q extends QueueName>(queue: Q, handlers: HandlerTable<Q>): Promise<void> {
  const bootLogger = createLogger("info", { service: `worker:${queue}` });
  try {
    const config = loadConfig();
    const logger = createLogger(config.logLevel, { service: `worker:${queue}` });
    const orm = await connectPostgres(config.databaseUrl, { poolMax: 4 });
    // Fails fast with a clear message when Redis is down, before BullMQ starts retrying silently.
    await (await connectRedis(config.redisUrl)).quit();
    const concurrency = Number(process.env.WORKER_CONCURRENCY ?? cpus().length) || 1;
    const table = handlers as Record<string, (payload: unknown, ctx: JobContext) => Promise<unknown>>;
    const worker = new Worker(
      queue,
      async (job) => {
        const handler = table[job.name];
        if (!handler) throw new UnrecoverableError(`no handler for job "${job.name}" on queue "${queue}" in this worker version`);
        return handler(job.data, { em: orm.em.fork(), logger: logger.child({ job: job.name, jobId: job.id }), job });
      },
      { connection: queueConnection(config), prefix: config.queuePrefix, concurrency },
    );
    worker.on("failed", (job, error) => logger.warn("job failed", { job: job?.name, jobId: job?.id, error }));
    worker.on("error", (error) => logger.error("worker error", { error }));
    // Handlers first: a SIGTERM that arrives right after "ready" must still stop cleanly.
    onShutdown(logger, config.shutdownTimeoutMs, [
      { name: "worker", run: () => worker.close() },
      { name: "postgres", run: () => orm.close() },
    ]);
    await worker.waitUntilReady();
    logger.info("worker ready", { queue, concurrency, jobs: Object.keys(table) });
  } catch (error) {
    exitOnStartupError(bootLogger, error);
  }
}
