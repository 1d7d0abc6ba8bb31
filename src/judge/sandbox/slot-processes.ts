import { readdirSync, readFileSync } from "node:fs";

/**
 * Ends every process running as a slot's uid, in any namespace, and resolves once none is left.
 *
 * Killing bubblewrap normally ends a run: its PID namespace goes with it, and every process the program
 * started. But a kill that lands while bubblewrap is still setting up leaves the sandbox's first
 * process behind: it was cloned and not yet told to die with its parent. It then waits for good for a
 * parent that is gone, holding the run's pipes, so the judge waited for good too. Measured here: 6 of
 * 100 kills 0–15 ms after the spawn left one. A slot uid is no account's and one judge's alone
 * (slots.ts), so every process with it belongs to the slot's run, or to a killed judge's run before it.
 *
 * Found through /proc rather than `kill -1` as the uid: no other binary needed. Zombies are skipped:
 * they are already dead and waiting for a parent to collect them. Rejects, naming them, when some
 * outlive SIGKILL for a second (a process stuck in the kernel): the slot is not fit for another run.
 */
export async function killSlotProcesses(uid: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    // Each process is signalled as soon as its uid is read, so that its pid has no time to be reused.
    const killed = eachProcessOf(uid, (pid) => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    });
    if (killed.length === 0) return;
    await Bun.sleep(ROUND_PAUSE_MS);
  }
  const left = processesOf(uid);
  if (left.length > 0) throw new Error(`processes of slot uid ${uid} survive SIGKILL: ${left.join(", ")}`);
}

const ROUNDS = 100;
const ROUND_PAUSE_MS = 10;

/** The live (not zombie) processes whose real uid is `uid`. */
export const processesOf = (uid: number): number[] => eachProcessOf(uid, () => {});

/**
 * Reads each process's status in turn (synchronously: /proc answers from memory, and one file open at
 * a time cannot run out of descriptors and so miss a process). A process that ended meanwhile is skipped;
 * any other failure to read is thrown, since a process not seen is a process not killed.
 */
function eachProcessOf(uid: number, visit: (pid: number) => void): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ESRCH") continue;
      throw error;
    }
    const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (real === undefined || Number(real) !== uid || /^State:\s+Z/m.test(status)) continue;
    visit(Number(name));
    found.push(Number(name));
  }
  return found;
}

/** The longest a timer can wait (setTimeout fires at once beyond it). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How one run is stopped: bubblewrap killed, then every process left with the slot's uid. Stopped on
 * the caller's signal, on `kill()` (an output flood), or by a watchdog `overdueMs` past the run's wall
 * clock: the runner keeps the wall clock, so the watchdog is for a sandbox that never started it.
 */
export class RunStop {
  /** The watchdog fired: the run did not end in time. */
  overdue = false;
  private killing: Promise<string> | null = null;
  private readonly watchdog: ReturnType<typeof setTimeout>;

  constructor(
    private readonly child: { kill(signal: "SIGKILL"): void },
    private readonly uid: number,
    wallMs: number,
    overdueMs: number,
    private readonly signal?: AbortSignal,
  ) {
    if (signal?.aborted) this.kill();
    signal?.addEventListener("abort", this.kill);
    this.watchdog = setTimeout(
      () => {
        this.overdue = true;
        this.kill();
      },
      Math.min(wallMs + overdueMs, MAX_TIMER_MS),
    );
  }

  /** The run was stopped from outside (the caller's signal, the watchdog, `kill()`). */
  get killed(): boolean {
    return this.killing !== null;
  }

  readonly kill = (): void => {
    this.child.kill("SIGKILL");
    this.killing ??= killSlotProcesses(this.uid).then(
      () => "",
      (error: Error) => error.message,
    );
  };

  /**
   * Stops watching and waits for a kill under way, so that the slot's next run cannot be hit by it:
   * "" when every process is gone, else what survived.
   */
  async settle(): Promise<string> {
    clearTimeout(this.watchdog);
    this.signal?.removeEventListener("abort", this.kill);
    return (await this.killing) ?? "";
  }
}
