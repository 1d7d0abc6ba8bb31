import { closeSync, existsSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { assertEmpty, assertNearlyEmpty, CgroupUnavailable, killAll, leftCharged, peakKb } from "./cgroup-common";
import { read, readAt, removeGroupNow, write } from "./cgroup-common";
import type { CgroupHost, RunAccount, RunCgroup } from "./cgroup-common";

/** cgroup v2 (current systemd hosts): a leaf per container inside each slot's group. */

export const V2_CONTROLLERS = ["memory", "pids", "cpu"] as const;

export function openV2(own: string, name: string): CgroupHost {
  const base = join(own, name);
  try {
    enableControllers(own);
    mkdirSync(base, { recursive: true });
    enableControllers(base);
  } catch (error) {
    throw new CgroupUnavailable(
      `cannot set up the judge's cgroups under ${own} (${(error as Error).message}): the judge must run as root ` +
        `with the cgroup file system writable (in Docker: privileged)`,
    );
  }
  return { version: 2, where: base, forSlot: (slot) => new V2Group(join(base, slot)) };
}

/**
 * Turns controllers on for a group's children. v2 forbids that while the group holds processes (unless
 * it is a root): then this process and its siblings move to a leaf of their own first, as systemd does.
 */
function enableControllers(dir: string): void {
  const wanted = V2_CONTROLLERS.map((c) => `+${c}`).join(" ");
  try {
    write(join(dir, "cgroup.subtree_control"), wanted);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EBUSY") throw error;
    const leaf = join(dir, "joj-judge-self");
    mkdirSync(leaf, { recursive: true });
    for (const pid of read(join(dir, "cgroup.procs")).split("\n").filter(Boolean)) {
      try {
        write(join(leaf, "cgroup.procs"), pid);
      } catch {
        /* exited meanwhile */
      }
    }
    write(join(dir, "cgroup.subtree_control"), wanted);
  }
}

/**
 * v2: a leaf inside the slot's group, made anew for each container. It serves many runs only where
 * `memory.peak` can be reset (Linux 6.12+: a write resets the peak seen through that descriptor); on
 * older kernels it cannot, so each container (and leaf) serves one run. CPU time and OOM kills are read
 * as the change over the run.
 */
class V2Group implements RunCgroup {
  private readonly run: string;
  private peak: number | null = null;
  private usecBefore = 0;
  private oomBefore = 0;
  reusable = false;
  /** Bytes the last run left charged (leftCharged), not this run's. */
  private left = 0;
  /** The memory limit the leaf holds, in bytes. */
  private limitBytes = Number.POSITIVE_INFINITY;

  constructor(private readonly slot: string) {
    mkdirSync(slot, { recursive: true });
    enableControllers(slot);
    this.run = join(slot, "run");
  }

  empty(): void {
    try {
      write(join(this.slot, "memory.reclaim"), "1G");
    } catch {
      /* nothing to reclaim, or a kernel before 5.19: the first run's reset says whether the group is clean */
    }
  }

  open(): number[] {
    this.closePeak();
    removeGroupNow(this.run);
    mkdirSync(this.run);
    try {
      this.peak = openSync(join(this.run, "memory.peak"), "r+");
      writeSync(this.peak, "reset");
      this.reusable = true;
    } catch {
      this.closePeak();
      this.reusable = false;
    }
    return [openSync(join(this.run, "cgroup.procs"), "w")];
  }

  async reset(limits: { memoryKb: number; processes: number }): Promise<void> {
    // A dirty leaf needs no mark: the next container's open() makes a new one.
    assertEmpty(join(this.run, "cgroup.procs"));
    // Page cache an earlier run left charged here would count in this run's peak (memory.reclaim: 5.19+;
    // before it the leaf serves one run and is new for each).
    await assertNearlyEmpty(
      () => Number(read(join(this.run, "memory.current"))),
      () => write(join(this.run, "memory.reclaim"), "1G"),
    );
    this.limitBytes = limits.memoryKb * 1024;
    write(join(this.run, "memory.max"), this.limitBytes);
    if (existsSync(join(this.run, "memory.swap.max"))) write(join(this.run, "memory.swap.max"), 0);
    write(join(this.run, "pids.max"), limits.processes);
    this.rearm();
    this.oomBefore = this.oomKills();
  }

  rearm(): void {
    if (this.peak !== null) writeSync(this.peak, "reset");
    this.left =
      this.peak !== null && Number(read(join(this.run, "memory.current")))
        ? leftCharged(read(join(this.run, "memory.stat")), ["anon", "file"])
        : 0;
    this.usecBefore = this.usec();
  }

  async finish(): Promise<RunAccount> {
    await killAll(join(this.run, "cgroup.procs"), join(this.run, "cgroup.kill"));
    const peak = this.peak === null ? read(join(this.run, "memory.peak")) : readAt(this.peak);
    return {
      cpuMs: Math.round((this.usec() - this.usecBefore) / 1000),
      memoryKb: peakKb(Number(peak), this.left, this.limitBytes),
      oomKilled: this.oomKills() > this.oomBefore,
    };
  }

  private usec(): number {
    return Number(/usage_usec (\d+)/.exec(read(join(this.run, "cpu.stat")))?.[1] ?? 0);
  }

  private oomKills(): number {
    return Number(/oom_kill (\d+)/.exec(read(join(this.run, "memory.events")))?.[1] ?? 0);
  }

  private closePeak(): void {
    if (this.peak !== null) closeSync(this.peak);
    this.peak = null;
  }

  async remove(): Promise<void> {
    this.closePeak();
    removeGroupNow(this.run, false);
    removeGroupNow(this.slot, false);
  }
}
