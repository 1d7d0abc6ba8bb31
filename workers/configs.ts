import { runWorker } from "./run-worker";

/** `bun run worker:configs`: unpacks uploaded config archives. Its jobs arrive with the problem-configs issue. */
await runWorker("configs", {});
