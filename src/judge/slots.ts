import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** One concurrent run's identity: its own uid (process limits and signals never cross runs) and directory. */
export interface Slot {
  uid: number;
  /** Parent of the slot's work directories (traversable, not listable, by every slot). */
  root: string;
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

  private constructor(readonly slots: Slot[], private readonly lockDir: string) {
    this.free = [...slots];
  }

  static async open(workDir: string, uidBase: number, count: number): Promise<SlotPool> {
    await mkdir(workDir, { recursive: true });
    // Slot uids pass through to their own directories; they may not list the others.
    await chmod(workDir, 0o711);
    const lockDir = join(workDir, "locks");
    await mkdir(lockDir, { recursive: true, mode: 0o700 });
    const slots: Slot[] = [];
    for (let uid = uidBase; slots.length < count && uid < uidBase + MAX_SCAN; uid++) {
      if (!(await takeLock(join(lockDir, String(uid))))) continue;
      // A run of a judge that was killed may have left files; its processes died with its sandbox.
      await rm(join(workDir, String(uid)), { recursive: true, force: true });
      slots.push({ uid, root: join(workDir, String(uid)) });
    }
    if (slots.length < count) throw new Error(`only ${slots.length} of ${count} sandbox uids from ${uidBase} are free`);
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
      await rm(slot.root, { recursive: true, force: true });
      await rm(join(this.lockDir, String(slot.uid)), { recursive: true, force: true });
    }
  }
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
