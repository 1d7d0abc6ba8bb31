import { closeSync, existsSync, openSync, readFileSync, readSync, rmdirSync, writeFileSync, writeSync } from "node:fs";

/** What the judge's cgroup drivers share (cgroup-v1.ts, cgroup-v2.ts); cgroups.ts finds which one a host has. */

export interface RunAccount {
  cpuMs: number;
  memoryKb: number;
  oomKilled: boolean;
}

/**
 * A slot's run cgroup. Its procs files are opened once for each container (the runner writes every
 * program into them); before each run its limits are set and its counters zeroed, after it whatever is
 * left is killed and the counters read.
 */
export interface RunCgroup {
  /**
   * Makes the group ready for a new container (a group found dirty before is made anew); returns the procs
   * files the program joins, opened.
   */
  open(): number[];
  /**
   * Sets the run's limits and zeroes its counters. Throws CgroupDirty, and marks the group to be made anew
   * by the next open(), when it still holds a process or more memory than DIRTY_ABOVE once reclaimed.
   */
  reset(limits: { memoryKb: number; processes: number }): Promise<void>;
  /**
   * Zeroes the counters again just before a run whose group was reset a moment earlier (reset-ahead.ts):
   * what the kernel freed meanwhile (the kernel memory of processes just ended, freed after a grace
   * period) was in the usage then, and would have stayed in this run's peak.
   */
  rearm(): void;
  /** After the run: kills whatever is left, then reads what the kernel counted. */
  finish(): Promise<RunAccount>;
  /**
   * Frees what the group holds charged (a judge that ran here before may have left the page cache it read),
   * when the judge takes the slot: before the toolchains are pinned, so none of their pages stays charged to
   * a slot. Best effort: a group that keeps anything is found dirty before its first run.
   */
  empty(): void;
  /** Whether the group can be reset for another run; if not, each container serves one run. */
  readonly reusable: boolean;
  remove(): Promise<void>;
}

export interface CgroupHost {
  version: 1 | 2;
  /** Where the judge's groups live, for logs. */
  where: string;
  forSlot(name: string): RunCgroup;
}

export class CgroupUnavailable extends Error {}

/**
 * The slot's group held a process, or memory a run could not be emptied of, before the next run: the
 * container is thrown away and the group made anew (a dirty group is never run in). Every run's files
 * are on a tmpfs unmounted before its reply ends, so what could be left is the kernel's (a socket in flight
 * until it is collected, a page still in use); a second run after it would be measured and limited with
 * that memory counted as its own.
 */
export class CgroupDirty extends Error {}

/**
 * Charged memory the group is reclaimed of before a run. What an earlier run left (page cache it read,
 * dentries, the per-CPU reserve of charges) would count in this run's peak, and a program could leave just
 * under any larger threshold to raise the next one's figure by that much; honest runs leave 8-900 KiB. A
 * reclaim of a group holding little costs ~30 us on a quiet machine, ~0.25 ms on a busy 2-CPU one (v1's
 * force_empty drains every CPU's reserve, waiting on each), so v1 asks for one only when page cache or
 * kernel memory says a run left something (cgroup-v1.ts).
 */
export const RECLAIM_ABOVE = 64 << 10;
/** Charged memory still there after reclaim that makes the group dirty: leftovers of a run, not noise. */
export const DIRTY_ABOVE = 2 << 20;

export const read = (path: string) => readFileSync(path, "utf8");
export const write = (path: string, value: string | number) => writeFileSync(path, String(value));

/** A file's first `size` bytes read through an open descriptor (memory.peak's reset is per descriptor). */
export function readAt(fd: number, size = 256): string {
  const buffer = Buffer.allocUnsafe(size);
  return buffer.toString("utf8", 0, readSync(fd, buffer, 0, size, 0));
}

/**
 * A group's files that every run reads or writes, kept open for the group's life: a read or write is one
 * system call instead of an open, a call and a close (the judge's own CPU per case, measured with
 * bench:judge). Closed when the group is made anew or removed.
 */
export class GroupFiles {
  private readonly fds = new Map<string, number>();

  /** Opened for reading or for writing as first asked (the kernel refuses read-write on a read-only file). */
  private fd(path: string, mode: "r" | "w"): number {
    const key = `${mode}:${path}`;
    let fd = this.fds.get(key);
    if (fd === undefined) {
      fd = openSync(path, mode);
      this.fds.set(key, fd);
    }
    return fd;
  }

  /** The file's first `size` bytes (a counter, a short table, whether a list is empty; all of memory.stat). */
  read(path: string, size = 256): string {
    return readAt(this.fd(path, "r"), size);
  }

  write(path: string, value: string | number): void {
    writeSync(this.fd(path, "w"), String(value));
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** A group about to take a run must hold no process: one would be a run's leftover, measured as this one's. */
export function assertEmpty(procs: string, files?: GroupFiles): void {
  const left = (files ? files.read(procs) : read(procs)).trim();
  if (left) throw new CgroupDirty(`the run cgroup still holds processes ${left.split("\n").join(", ")}`);
}

/**
 * Memory left charged to a group, reclaimed when over RECLAIM_ABOVE; CgroupDirty when over DIRTY_ABOVE even
 * then. `charged` reads the group's usage; `reclaim` asks the kernel to free what it can. What the kernel
 * frees after a grace period (the task structures and stacks of many processes just killed: 2.6 MiB after a
 * fork bomb of 64) is waited for a few milliseconds before the group is called dirty. `pending`, where the
 * driver can read it, is the group's kernel memory alone (no per-CPU reserve): after such a run it is waited
 * for, bounded, until under PENDING_BELOW, since a run's peak starts at the usage its reset leaves.
 */
export async function assertNearlyEmpty(
  charged: () => number,
  reclaim: () => void,
  always = false,
  pending?: () => number,
): Promise<void> {
  if (!always && charged() <= RECLAIM_ABOVE) return;
  // Whether the reclaim left over 1 MiB at first: a run that killed or reaped many processes at once.
  let heavy = false;
  for (let round = 0; ; round++) {
    try {
      reclaim();
    } catch {
      /* busy, or nothing to reclaim: the usage says */
    }
    // What the reclaim could not free (half-used slab pages, the per-CPU reserve of charges: ~0.5 MiB) is the
    // kernel's, not a leftover of the run. More is what the kernel frees after a grace period (the task
    // structures of many processes just killed, an IPC namespace): waited for, since the next run's peak would
    // count it (a C probe after 200 forks and 300 SysV objects reported 1.8 MB against 0.3 fresh). Past the
    // rounds the group is clean unless it holds more than DIRTY_ABOVE.
    const left = charged();
    if (round === 0) heavy = left > SETTLED_BELOW;
    if (left <= SETTLED_BELOW) {
      // Under 1 MiB, the rest of a fork bomb's memory still comes free in steps over ~35 ms on a loaded 2-CPU VM
      // (the twins: after 200 forks a reset that stopped at 1 MiB left 500-990 KiB of it, counted in the peak of
      // the C probe that came next). Only a group that held more than 1 MiB after its first reclaim waits: an
      // honest program touching 64 MiB leaves 200-700 KiB of kernel memory that comes free as slowly.
      if (!heavy || !pending || round >= PENDING_ROUNDS || pending() <= PENDING_BELOW) return;
    } else if (round >= SETTLE_ROUNDS) {
      if (left <= DIRTY_ABOVE) return;
      throw new CgroupDirty(`the run cgroup holds ${Math.round(left / 1024)} KiB a run left, even after reclaim`);
    }
    await Bun.sleep(SETTLE_PAUSE_MS);
  }
}

/**
 * The page cache an earlier run left charged to a group that its reclaim did not free, in bytes: the named
 * fields of its memory.stat summed. A run's peak starts from the group's usage, so that would count as the
 * next run's own; the judge subtracts it. Not the kernel's own memory (dentries, half-used slab pages: a run
 * fills those before it is charged more, and what the kernel frees after a grace period is gone a moment
 * into the run), nor the per-CPU reserve of charges (a run spends that first: subtracting it made a small
 * program's peak 0).
 */
export function leftCharged(stat: string, fields: readonly string[]): number {
  let bytes = 0;
  for (const line of stat.split("\n")) {
    const [name, value] = line.split(" ");
    if (fields.includes(name)) bytes += Number(value) || 0;
  }
  return bytes;
}

/**
 * A run's peak in KiB: the group's maximum less what an earlier run left charged, unless the group reached
 * its limit. There the kernel reclaims the leftovers on the program's behalf before it kills it (page cache
 * goes first), so the program had its whole limit, and a peak cut by the leftovers would read under it: an
 * OOM-killed program reported 65,520 KiB under a 64 MiB limit, and a program at its limit that also ran out
 * of time would be called out of time instead of memory (verdict.ts).
 */
export function peakKb(maxBytes: number, leftBytes: number, limitBytes: number): number {
  return Math.ceil((maxBytes >= limitBytes ? maxBytes : Math.max(0, maxBytes - leftBytes)) / 1024);
}

/** What may stay charged after a reclaim without a wait: the kernel's own, well under the twins' 1 MiB. */
const SETTLED_BELOW = 1 << 20;
const SETTLE_ROUNDS = 10;
const SETTLE_PAUSE_MS = 5;
/**
 * Kernel memory still to come free that a group that held over 1 MiB after its first reclaim waits for: after
 * 200 forks it falls from MiBs in steps to ~20 KiB within ~35 ms. At most PENDING_ROUNDS pauses, then let go
 * (not dirty).
 */
const PENDING_BELOW = 256 << 10;
const PENDING_ROUNDS = 20;

/**
 * A group that holds no process, removed: its processes were killed, but the kernel may take a moment to
 * let the group go (EBUSY), so it waits up to a second. Before a new container's group is made, one still
 * busy then is an error (`strict`); when the judge stops, it is left to the kernel.
 */
export function removeGroupNow(dir: string, strict = true): void {
  for (let round = 0; ; round++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || (code === "EBUSY" && round >= 100 && !strict)) return;
      if (code !== "EBUSY" || round >= 100) throw error;
      Bun.sleepSync(10);
    }
  }
}

/** SIGKILLs every process left in a group and waits (bounded) until it is empty. */
export async function killAll(procs: string, killFile?: string): Promise<void> {
  for (let round = 0; round < 200; round++) {
    const pids = read(procs).split("\n").filter(Boolean).map(Number);
    if (pids.length === 0) return;
    if (killFile && existsSync(killFile)) write(killFile, 1);
    else
      for (const pid of pids)
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    await Bun.sleep(5);
  }
  throw new Error(`processes survive in ${procs}`);
}

export const closeFds = (fds: number[]) => {
  for (const fd of fds) closeSync(fd);
};
