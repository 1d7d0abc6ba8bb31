import { runWorker } from "./run-worker";

/** `bun run worker:judge`: judges records from the `judge` queue. Its jobs arrive with the records issue. */
await runWorker("judge", {});
