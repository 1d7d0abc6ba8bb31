import { withTimeout } from "./timeout";
import type { Logger } from "./logger";

/** A shutdown step; `timeoutMs` overrides the shared bound (the judge's grace is longer). */
type Step = { name: string; run: () => Promise<unknown> | unknown; timeoutMs?: number };

// A signal sent to a process group reaches us twice within milliseconds (directly, and forwarded by
// `bun run`): a repeat this soon is the same request, not an operator's second Ctrl-C.
const SAME_SIGNAL_MS = 1_000;

/**
 * Runs the shutdown steps in order on SIGTERM/SIGINT (stop accepting, finish in-flight work, close
 * pools), each bounded by the timeout, then exits. While it runs, a repeated SIGTERM is ignored; only
 * an operator's second Ctrl-C (a SIGINT a moment after the first signal) exits at once.
 */
export function onShutdown(logger: Logger, timeoutMs: number, steps: Step[], onBegin?: () => void): void {
  let stopping = false;
  let stoppingSince = 0;
  const stop = async (signal: string) => {
    if (stopping) {
      if (signal === "SIGINT" && Date.now() - stoppingSince > SAME_SIGNAL_MS) {
        logger.warn("second Ctrl-C: exiting now", { signal });
        process.exit(1);
      }
      logger.info("already shutting down: signal ignored", { signal });
      return;
    }
    stopping = true;
    stoppingSince = Date.now();
    onBegin?.();
    logger.info("shutting down", { signal });
    let failed = false;
    for (const step of steps) {
      try {
        await withTimeout(Promise.resolve(step.run()), step.timeoutMs ?? timeoutMs);
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
