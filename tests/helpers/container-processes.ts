import { readFileSync } from "node:fs";
import { processesOf } from "../../src/judge/sandbox/slot-processes";

/** What a living container that no run left anything in runs as its slot's uid (see containerProcesses). */
export const CONTAINER_PROCESSES = [".runner", ".runner", ".runner", "bwrap"];

const names = (uid: number) =>
  processesOf(uid)
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      } catch {
        return "";
      }
    })
    .filter(Boolean)
    .sort();

/**
 * The names of the processes a slot's uid runs once its container has settled after a run: bubblewrap
 * (outside), the runner (the sandbox's PID 1), the runs' init and the next run's spare (runner-spare.c),
 * which the runner forks after its reset, so a moment after the run's reply. Waits up to two seconds for
 * the spare; anything else (a daemon a program left) is among the names.
 */
export async function containerProcesses(uid: number): Promise<string[]> {
  let seen = names(uid);
  for (let i = 0; i < 400 && seen.filter((name) => name === ".runner").length < 3; i++) {
    await Bun.sleep(5);
    seen = names(uid);
  }
  return seen;
}
