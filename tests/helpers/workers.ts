import type { Worker } from "bullmq";
import { createQueueWorker } from "../../workers/run-worker";
import { configsHandlers } from "../../workers/configs";
import type { TestApp } from "./spawn-app";

/** The real configs worker, in this process, on the app's own queue prefix: jobs travel through Redis. */
export async function startConfigsWorker(t: TestApp): Promise<Worker> {
  const worker = createQueueWorker(
    "configs",
    configsHandlers,
    { config: t.config, orm: t.orm, logger: t.logger, store: t.store, jobs: t.jobs },
    2,
  );
  await worker.waitUntilReady();
  return worker;
}
