import type { Logger } from "../logger";

type Step = { name: string; run: () => Promise<unknown> | unknown };

/**
 * Runs the shutdown steps in order on SIGTERM/SIGINT (stop accepting, finish in-flight work, close
 * pools), each bounded by the timeout, then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, timeoutMs: number, steps: Step[], onBegin?: () => void): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn("second signal: exiting now", { signal });
      process.exit(1);
    }
    stopping = true;
    onBegin?.();
    logger.info("shutting down", { signal });
    let failed = false;
    for (const step of steps) {
      try {
        await withTimeout(Promise.resolve(step.run()), timeoutMs);
      } catch (error) {
        failed = true;
        logger.error("shutdown step failed", { step: step.name, error });
      }
    }
    logger.info("stopped");
    process.exit(failed ? 1 : 0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  watchSupervisor(logger, () => void stop("supervisor gone"));
}

/**
 * A worker started by `bun run start` (SUPERVISOR_PID set) stops, gracefully, when that process is gone:
 * killed with SIGKILL, it could not stop its children, which run in their own process groups.
 */
function watchSupervisor(logger: Logger, stop: () => void): void {
  const supervisor = Number(process.env.SUPERVISOR_PID);
  if (!supervisor) return;
  const timer = setInterval(() => {
    if (process.ppid === supervisor) return;
    clearInterval(timer);
    logger.warn("the supervising process is gone: stopping", { supervisor });
    stop();
  }, 1_000);
  timer.unref();
}

function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms); });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
