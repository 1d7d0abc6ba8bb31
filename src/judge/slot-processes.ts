import { readdir, readFile } from "node:fs/promises";

/**
 * Ends every process running as a slot's uid, in any namespace, and resolves once none is left.
 *
 * Killing bubblewrap normally ends a run: its PID namespace goes with it, and every process the program
 * started. But a kill that lands while bubblewrap is still setting up leaves the sandbox's first
 * process behind: it was cloned and not yet told to die with its parent. It then waits for good for a
 * parent that is gone, holding the run's pipes, so the judge waited for good too. Measured here: 6 of
 * 100 kills 0–15 ms after the spawn left one. The uid is the slot's alone (a lock per uid,
 * slots.ts), so every process with it belongs to the slot's run, or to a killed judge's run before it.
 *
 * Found through /proc rather than `kill -1` as the uid: no other binary needed. Zombies are skipped:
 * they are already dead and waiting for a parent to collect them.
 */
export async function killSlotProcesses(uid: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    // Each process is signalled as soon as its uid is read, so that its pid has no time to be reused.
    const killed = await eachProcessOf(uid, (pid) => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    });
    if (killed.length === 0) return;
    await Bun.sleep(ROUND_PAUSE_MS);
  }
  const left = await processesOf(uid);
  if (left.length > 0) throw new Error(`processes of slot uid ${uid} survive SIGKILL: ${left.join(", ")}`);
}

const ROUNDS = 20;
const ROUND_PAUSE_MS = 10;

/** The live (not zombie) processes whose real uid is `uid`. */
export const processesOf = (uid: number): Promise<number[]> => eachProcessOf(uid, () => {});

async function eachProcessOf(uid: number, visit: (pid: number) => void): Promise<number[]> {
  const entries = await readdir("/proc");
  const found = await Promise.all(entries.filter((name) => /^\d+$/.test(name)).map(async (name) => {
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (real === undefined || Number(real) !== uid || /^State:\s+Z/m.test(status)) return null;
    visit(Number(name));
    return Number(name);
  }));
  return found.filter((pid): pid is number => pid !== null);
}
