import { existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import {
  assertEmpty,
  assertNearlyEmpty,
  CgroupDirty,
  CgroupUnavailable,
  GroupFiles,
  leftCharged,
  RECLAIM_ABOVE,
} from "./cgroup-common";
import { killAll, peakKb, removeGroupNow, write } from "./cgroup-common";
import type { CgroupHost, RunAccount, RunCgroup } from "./cgroup-common";

/** cgroup v1 (hybrid hosts, this project's CI): one group per slot in each of three hierarchies. */

/**
 * The most of a group's kernel memory taken as what a reclaim cannot free. Honest runs leave 110-330 KiB
 * here that force_empty leaves as it is (the kernel's own objects, freed in its own time); a reclaim just
 * after a run that forked many processes finds theirs not yet freed (2.6 MiB after 64), and a floor that
 * high would let the next run leave that much of dentries unreclaimed for the run after it.
 */
const KMEM_FLOOR_MAX = 512 << 10;
/** Enough of memory.stat for all of it (~0.9 KiB on v1), read through the group's open descriptor. */
const STAT_BYTES = 4096;

export const V1_CONTROLLERS = ["memory", "pids", "cpuacct"] as const;

export type V1Dirs = Record<(typeof V1_CONTROLLERS)[number], string>;

export function openV1(base: V1Dirs): CgroupHost {
  try {
    for (const dir of Object.values(base)) mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new CgroupUnavailable(
      `cannot create the judge's cgroups under ${base.memory} (${(error as Error).message}): the judge must run as ` +
        `root with the cgroup file system writable`,
    );
  }
  return {
    version: 1,
    where: base.memory,
    forSlot: (slot) =>
      new V1Group(Object.fromEntries(Object.entries(base).map(([c, d]) => [c, join(d, slot)])) as V1Dirs),
  };
}

class V1Group implements RunCgroup {
  readonly reusable = true;
  /** The OOM kills counted before the run (null: to be read). */
  private oomBefore: number | null = null;
  /** The limits the group holds ("memoryKb/processes"; null: to be written). */
  private applied: string | null = null;
  private readonly memsw: boolean;
  /** A reset found what a run left (CgroupDirty): the next container gets the group made anew. */
  private dirty = false;
  private readonly files = new GroupFiles();
  /** Bytes the last run left charged (leftCharged), not this run's. */
  private left = 0;
  /** The memory limit the group holds, in bytes. */
  private limitBytes = Number.POSITIVE_INFINITY;
  /** Kernel memory the group held after its last reclaim, at most KMEM_FLOOR_MAX (null: none yet). */
  private kmemFloor: number | null = null;
  /** Whether the kernel counts the group's kernel memory apart (memory.kmem.usage_in_bytes). */
  private readonly kmem: boolean;

  constructor(private readonly dirs: V1Dirs) {
    this.make();
    this.memsw = existsSync(join(dirs.memory, "memory.memsw.limit_in_bytes"));
    this.kmem = existsSync(join(dirs.memory, "memory.kmem.usage_in_bytes"));
  }

  private make(): void {
    for (const dir of Object.values(this.dirs)) mkdirSync(dir, { recursive: true });
    // No swapping instead of the limit, and the kernel's OOM killer on (an OOM kill is the MLE signal).
    write(join(this.dirs.memory, "memory.swappiness"), 0);
  }

  empty(): void {
    try {
      write(join(this.dirs.memory, "memory.force_empty"), 0);
    } catch {
      /* a process still there: the first run's reset finds the group dirty */
    }
  }

  open(): number[] {
    this.applied = null;
    this.oomBefore = null;
    if (this.dirty) {
      // Removed with what it holds (the kernel keeps that until it is freed, outside any slot's count).
      this.files.close();
      for (const dir of Object.values(this.dirs)) removeGroupNow(dir);
      this.make();
      this.dirty = false;
      this.kmemFloor = null;
    }
    // Each program joins through `tasks`, not `cgroup.procs`: it is one thread (a fork of the runner, before
    // exec), so moving the thread moves the process, and a thread writing itself is moved without the
    // kernel's global lock on every thread group (cgroup_threadgroup_rwsem), whose writer waits out an RCU
    // grace period: 1.3-2.5 ms of every run on a 2-CPU VM, against ~0.1 ms (docs/benchmarks.md).
    return V1_CONTROLLERS.map((c) => openSync(join(this.dirs[c], "tasks"), "w"));
  }

  async reset(limits: { memoryKb: number; processes: number }): Promise<void> {
    const memory = (file: string) => join(this.dirs.memory, file);
    try {
      assertEmpty(join(this.dirs.pids, "cgroup.procs"), this.files);
      // Earlier runs leave some memory charged here (the page cache of the compilers they read, cached
      // dentries), which the kernel frees when asked: reclaimed when it passes RECLAIM_ABOVE, so no run's
      // peak includes another's leftovers (the twins test, tests/judge/twins.test.ts). What a run could leave
      // is read apart: page cache and anonymous pages in memory.stat, dentries and the kernel's other objects
      // in memory.kmem.usage_in_bytes, against what the group's last reclaim could not free of them. The
      // usage alone would call for a reclaim after every run: it also counts the per-CPU reserve of charges
      // (~200 KiB after an a + b here), which force_empty drains by waiting on every CPU (~0.25 ms a run on
      // a busy 2-CPU machine), and which a run spends before it is charged more.
      // What page cache survives the reclaim is subtracted from the peak (leftCharged).
      // (Without the kmem counter, the usage decides, reserve and all.)
      const usage = () => Number(this.files.read(memory("memory.usage_in_bytes")));
      const pages = () => leftCharged(this.files.read(memory("memory.stat"), STAT_BYTES), ["cache", "rss"]);
      const kmem = () => (this.kmem ? Number(this.files.read(memory("memory.kmem.usage_in_bytes"))) : 0);
      const [leftPages, leftKmem] = [pages(), kmem()];
      const over = this.kmem
        ? leftPages > RECLAIM_ABOVE || this.kmemFloor === null || leftKmem > this.kmemFloor + RECLAIM_ABOVE
        : usage() > RECLAIM_ABOVE;
      if (over) {
        await assertNearlyEmpty(
          usage,
          () => write(memory("memory.force_empty"), 0),
          true,
          this.kmem ? kmem : undefined,
        );
        this.left = pages();
        this.kmemFloor = Math.min(kmem(), KMEM_FLOOR_MAX);
      } else this.left = leftPages;
    } catch (error) {
      if (error instanceof CgroupDirty) this.dirty = true;
      throw error;
    }
    // The limits stay in the group: the cases of a record, which share them, write them once.
    const wanted = `${limits.memoryKb}/${limits.processes}`;
    if (this.applied !== wanted) {
      const bytes = limits.memoryKb * 1024;
      this.limitBytes = bytes;
      // memsw must stay ≥ the memory limit at every step.
      if (this.memsw) write(memory("memory.memsw.limit_in_bytes"), -1);
      write(memory("memory.limit_in_bytes"), bytes);
      if (this.memsw) write(memory("memory.memsw.limit_in_bytes"), bytes);
      write(join(this.dirs.pids, "pids.max"), limits.processes);
      this.applied = wanted;
    }
    this.files.write(memory("memory.max_usage_in_bytes"), 0);
    this.files.write(join(this.dirs.cpuacct, "cpuacct.usage"), 0);
    // The count as the last run left it, unless this is a new container's first run.
    this.oomBefore ??= this.oomKills();
  }

  rearm(): void {
    const memory = (file: string) => join(this.dirs.memory, file);
    this.left = leftCharged(this.files.read(memory("memory.stat"), STAT_BYTES), ["cache", "rss"]);
    this.files.write(memory("memory.max_usage_in_bytes"), 0);
    this.files.write(join(this.dirs.cpuacct, "cpuacct.usage"), 0);
  }

  async finish(): Promise<RunAccount> {
    // Empty after every run that ended on its own (its init reaped it all): one read says so.
    if (this.files.read(join(this.dirs.pids, "cgroup.procs")).trim())
      await killAll(join(this.dirs.pids, "cgroup.procs"));
    const ooms = this.oomKills();
    const account = {
      cpuMs: Math.round(Number(this.files.read(join(this.dirs.cpuacct, "cpuacct.usage"))) / 1e6),
      memoryKb: peakKb(
        Number(this.files.read(join(this.dirs.memory, "memory.max_usage_in_bytes"))),
        this.left,
        this.limitBytes,
      ),
      oomKilled: ooms > (this.oomBefore ?? ooms),
    };
    this.oomBefore = ooms;
    return account;
  }

  private oomKills(): number {
    return Number(/oom_kill (\d+)/.exec(this.files.read(join(this.dirs.memory, "memory.oom_control")))?.[1] ?? 0);
  }

  async remove(): Promise<void> {
    this.files.close();
    for (const dir of Object.values(this.dirs)) removeGroupNow(dir, false);
  }
}
