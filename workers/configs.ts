import { runWorker, type HandlerTable } from "./run-worker";
import { unpackConfigArchive } from "../src/modules/problem-configs/configs.jobs";

/** The configs queue's jobs (exported for tests, which run them in-process on a real queue). */
export const configsHandlers: HandlerTable<"configs"> = {
  "config.unpack": (payload, ctx) => unpackConfigArchive(payload, ctx),
};

/** `bun run worker:configs`: unpacks uploaded config archives into config versions. */
if (import.meta.main) await runWorker("configs", configsHandlers);
