import type { Subprocess } from "bun";
import type { Logger } from "../core/logger";

/** Children still running; SIGTERMed when this process exits by any path, so none outlive it by accident. */
const live = new Set<Subprocess>();
let exitHookInstalled = false;

/**
 * Spawns a child in its own process group (detached). A terminal's Ctrl-C then reaches only this process,
 * which stops the children itself, in order, once: a second signal would make them exit at once
 * instead of finishing their jobs. The child's environment is always given, built from what it needs
 * (child-env.ts): never this process's, which holds every secret of the server.
 */
export function spawnChild(
  cmd: string[],
  options: { env: Record<string, string>; inheritOutput?: boolean },
): Subprocess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const child of live) child.kill("SIGTERM");
    });
  }
  const output = options.inheritOutput ? "inherit" : "ignore";
  // SUPERVISOR_PID: a child outliving this process (SIGKILLed, so no exit hook ran) notices and stops itself.
  const env = { ...options.env, SUPERVISOR_PID: String(process.pid) };
  const child = Bun.spawn(cmd, { env, stdio: ["ignore", output, output], detached: true });
  live.add(child);
  void child.exited.then(() => live.delete(child));
  return child;
}

/** SIGTERM, wait up to graceMs for the child to finish on its own, then SIGKILL. */
export async function stopChild(child: Subprocess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  const timedOut = await Promise.race([child.exited.then(() => false), gaveUp]);
  clearTimeout(timer);
  if (timedOut) {
    child.kill("SIGKILL");
    await child.exited;
  }
}

const RESTART_WINDOW_MS = 60_000;
const MAX_RESTARTS_PER_WINDOW = 5;

export interface Supervised {
  stop(graceMs: number): Promise<void>;
}

/**
 * Runs a long-lived child (a worker) and restarts it when it exits unexpectedly, with an exponential
 * back-off and at most MAX_RESTARTS_PER_WINDOW restarts a minute: a crash loop (say, while PostgreSQL is
 * down) neither spins the CPU nor gives up for good.
 */
export function supervise(name: string, cmd: string[], env: Record<string, string>, logger: Logger): Supervised {
  const log = logger.child({ child: name });
  const restarts: number[] = [];
  let child: Subprocess;
  let stopping = false;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;

  const run = () => {
    child = spawnChild(cmd, { env, inheritOutput: true });
    log.info("child started", { pid: child.pid });
    void child.exited.then(() => {
      if (stopping) return;
      const now = Date.now();
      while (restarts.length > 0 && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
      const delayMs =
        restarts.length >= MAX_RESTARTS_PER_WINDOW
          ? RESTART_WINDOW_MS - (now - restarts[0])
          : 1_000 * 2 ** restarts.length;
      log.error("child exited unexpectedly; restarting", {
        exitCode: child.exitCode,
        signal: child.signalCode,
        restartInMs: delayMs,
      });
      restartTimer = setTimeout(() => {
        restarts.push(Date.now());
        run();
      }, delayMs);
    });
  };
  run();

  return {
    async stop(graceMs) {
      stopping = true;
      clearTimeout(restartTimer);
      await stopChild(child, graceMs);
      log.info("child stopped", { exitCode: child.exitCode, signal: child.signalCode });
    },
  };
}
