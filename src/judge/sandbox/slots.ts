import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CgroupDirty, type CgroupHost, type RunCgroup } from "./cgroups/cgroups";
import { Container, type ContainerRun } from "./container";
import type { RunResult } from "./sandbox";
import { killSlotProcesses } from "./slot-processes";
import { pinToolchains } from "./toolchain-pages";
import { mountTmpfs, unmount } from "./tmpfs";

/**
 * One concurrent run's identity: its own uid (process limits and signals never cross runs), its own
 * directory on a tmpfs of bounded size (no program can fill the host's disk), and its own cgroup.
 */
export interface Slot {
  uid: number;
  /** The slot's own tmpfs mount, holding its stage (stage.ts); traversable, not listable, by every slot. */
  root: string;
  cgroup: RunCgroup;
  /** The slot's living sandbox, started by its first run (steps.ts, runInSlot). */
  container?: Container;
}

export interface SlotOptions {
  cgroups: CgroupHost;
  /** Size of each slot's tmpfs (its stage: a run's program and input must fit). */
  diskBytes: number;
  /** false: leave the toolchains' page cache to whoever faults it (a test of what happens without). */
  pinToolchains?: boolean;
}

const MAX_SCAN = 4096;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The judge's slots, one per concurrent record. Several judge processes on one machine must not
 * share a uid (its process count is one kernel limit), so each uid is taken with a lock directory
 * (`mkdir` is atomic) naming the owner's pid; a lock whose owner died is taken over.
 */
export class SlotPool {
  private readonly free: Slot[];
  private readonly waiters: ((slot: Slot) => void)[] = [];

  private constructor(
    readonly slots: Slot[],
    private readonly lockDir: string,
  ) {
    this.free = [...slots];
  }

  static async open(workDir: string, uidBase: number, count: number, options: SlotOptions): Promise<SlotPool> {
    await mkdir(workDir, { recursive: true });
    // Slot uids pass through to their own directories; they may not list the others.
    await chmod(workDir, 0o711);
    const lockDir = join(workDir, "locks");
    await mkdir(lockDir, { recursive: true, mode: 0o700 });
    const slots: Slot[] = [];
    // A slot's processes are killed by uid (slot-processes.ts): never an account's.
    const accounts = await accountUids();
    for (let uid = uidBase; slots.length < count && uid < uidBase + MAX_SCAN; uid++) {
      if (accounts.has(uid) || !(await takeLock(join(lockDir, String(uid))))) continue;
      // A run of a judge that was killed may have left a mount, files, and a sandbox caught in its set-up.
      await killSlotProcesses(uid);
      const root = join(workDir, String(uid));
      unmount(root);
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { mode: 0o711 });
      mountTmpfs(root, options.diskBytes, "0711");
      slots.push({ uid, root, cgroup: options.cgroups.forSlot(`slot-${uid}`) });
    }
    if (slots.length < count) throw new Error(`only ${slots.length} of ${count} sandbox uids from ${uidBase} are free`);
    // The runtimes' page cache is the judge's, never a slot's (toolchain-pages.ts): the slots' groups are
    // emptied of what an earlier judge left charged, then the toolchains pinned, before any run.
    for (const slot of slots) slot.cgroup.empty();
    if (options.pinToolchains !== false) await pinToolchains(join(workDir, "bin"));
    return new SlotPool(slots, lockDir);
  }

  acquire(): Promise<Slot> {
    const slot = this.free.pop();
    return slot ? Promise.resolve(slot) : new Promise((resolve) => this.waiters.push(resolve));
  }

  release(slot: Slot): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(slot);
    else this.free.push(slot);
  }

  async close(): Promise<void> {
    for (const slot of this.slots) {
      await slot.container?.close();
      await slot.cgroup.remove();
      unmount(slot.root);
      await rm(slot.root, { recursive: true, force: true });
      await rm(join(this.lockDir, String(slot.uid)), { recursive: true, force: true });
    }
  }
}

/** The uids of the machine's accounts (`/etc/passwd`). */
async function accountUids(): Promise<Set<number>> {
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  return new Set(
    passwd
      .split("\n")
      .map((line) => Number(line.split(":")[2]))
      .filter(Number.isInteger),
  );
}

async function takeLock(path: string): Promise<boolean> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      await mkdir(path);
      await writeFile(join(path, "pid"), String(process.pid));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(await readFile(join(path, "pid"), "utf8").catch(() => "0"));
      // A lock just made has no pid yet: leave it to its maker.
      if (!owner || alive(owner)) return false;
      await rm(path, { recursive: true, force: true });
    }
  }
  return false;
}

function startContainer(slot: Slot, tools: { runner: string; settings: { diskBytes: number } }): Container {
  return Container.start({
    runner: tools.runner,
    stageDir: join(slot.root, "stage"),
    uid: slot.uid,
    cgroup: slot.cgroup,
    tmpBytes: tools.settings.diskBytes,
  });
}

/**
 * A run in the slot's container (its uid, its cgroup, the judge's /work size); a new container when the
 * slot has none yet or its last one was thrown away (container.ts). A slot whose cgroup a run left dirty
 * gets a new container and a new group, once: a new group is empty.
 */
export async function runInSlot(
  slot: Slot,
  tools: { runner: string; settings: { diskBytes: number } },
  run: ContainerRun,
  signal?: AbortSignal,
): Promise<RunResult> {
  for (let attempt = 0; ; attempt++) {
    if (!slot.container || !(await slot.container.ready())) {
      // Closed (or not clean), or never started (close is idempotent): nothing of the old one may linger.
      await slot.container?.close();
      slot.container = startContainer(slot, tools);
    }
    try {
      return await slot.container.run(run, signal);
    } catch (error) {
      if (!(error instanceof CgroupDirty) || attempt > 0) throw error;
    }
  }
}
