import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmdirSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/**
 * Resource accounting from outside the sandbox. Every run (a compile, a case) happens in a cgroup that
 * the judge creates and reads on the host: the memory limit covers every process and thread of the
 * run and the tmpfs pages it writes, the peak and the CPU time are the whole group's, a pids limit
 * bounds forks, and an OOM kill is seen as such. Only the program's own process tree is in the group:
 * the runner's child joins it just before exec, through descriptors the judge opened as root, so the
 * sandbox's own set-up costs neither time nor memory. cgroup v2 and v1 (hybrid hosts) are supported.
 */

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
  /** Makes the group ready for a new container; returns the procs files the program joins, opened. */
  open(): number[];
  /** Sets the run's limits and zeroes its counters; refuses a group that still holds a process. */
  reset(limits: { memoryKb: number; processes: number }): Promise<void>;
  /** After the run: kills whatever is left, then reads what the kernel counted. */
  finish(): Promise<RunAccount>;
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

const V1_CONTROLLERS = ["memory", "pids", "cpuacct"] as const;
/** v1: what earlier runs may leave charged to a slot's group before it is emptied (see V1Group.reset). */
const FORCE_EMPTY_ABOVE = 1 << 20;
const V2_CONTROLLERS = ["memory", "pids", "cpu"] as const;

/** The mount points of cgroup hierarchies, from /proc/self/mountinfo. */
export function parseMounts(mountinfo: string): {
  v2: { root: string; at: string } | null;
  v1: Map<string, { root: string; at: string }>;
} {
  const v1 = new Map<string, { root: string; at: string }>();
  let v2: { root: string; at: string } | null = null;
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [type, , options = ""] = right.split(" ");
    const mount = { root: fields[3], at: fields[4] };
    if (type === "cgroup2") v2 ??= mount;
    else if (type === "cgroup") for (const option of options.split(",")) if (!v1.has(option)) v1.set(option, mount);
  }
  return { v2, v1 };
}

/** This process's cgroup path in each hierarchy, from /proc/self/cgroup ("" is the v2 one). */
export function parseOwnGroups(text: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    if (match[2] === "") groups.set("", match[3]);
    for (const controller of match[2].split(",")) if (controller) groups.set(controller, match[3]);
  }
  return groups;
}

/** The directory of a group path inside a mount whose root may itself be a sub-group (containers). */
const dirOf = (mount: { root: string; at: string }, group: string) =>
  join(mount.at, mount.root !== "/" && group.startsWith(mount.root) ? group.slice(mount.root.length) : group);

const read = (path: string) => readFileSync(path, "utf8");
const write = (path: string, value: string | number) => writeFileSync(path, String(value));

/** Finds usable cgroups (v2 first, else v1) or says what to enable; never a weaker mode. */
export function detectCgroups(
  name = "joj-judge",
  proc = { mountinfo: read("/proc/self/mountinfo"), cgroup: read("/proc/self/cgroup") },
): CgroupHost {
  const { v2, v1 } = parseMounts(proc.mountinfo);
  const own = parseOwnGroups(proc.cgroup);
  const problems: string[] = [];
  if (v2 && own.has("")) {
    const dir = dirOf(v2, own.get("")!);
    const available = read(join(dir, "cgroup.controllers")).trim().split(/\s+/);
    const missing = V2_CONTROLLERS.filter((c) => !available.includes(c));
    if (missing.length === 0) return openV2(dir, name);
    problems.push(`cgroup v2 at ${v2.at} lacks the ${missing.join(", ")} controller(s) in ${dir}`);
  }
  const missing = V1_CONTROLLERS.filter((c) => !v1.has(c) || !own.has(c));
  if (missing.length === 0)
    return openV1(
      Object.fromEntries(V1_CONTROLLERS.map((c) => [c, join(dirOf(v1.get(c)!, own.get(c)!), name)])) as V1Dirs,
    );
  problems.push(`cgroup v1 has no ${missing.join(", ")} hierarchy`);
  throw new CgroupUnavailable(
    `the judge needs cgroups to measure and limit programs (${problems.join("; ")}). Enable cgroup v2 with the ` +
      `memory, ` +
      "pids and cpu controllers (the default of current systemd hosts), or mount the v1 memory, pids and cpuacct " +
      "hierarchies; in Docker run the judge privileged (compose.yaml does). The judge refuses to run without them.",
  );
}

type V1Dirs = Record<(typeof V1_CONTROLLERS)[number], string>;

function openV1(base: V1Dirs): CgroupHost {
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

  constructor(private readonly dirs: V1Dirs) {
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    // No swapping instead of the limit, and the kernel's OOM killer on (an OOM kill is the MLE signal).
    write(join(dirs.memory, "memory.swappiness"), 0);
    this.memsw = existsSync(join(dirs.memory, "memory.memsw.limit_in_bytes"));
  }

  open(): number[] {
    this.applied = null;
    this.oomBefore = null;
    return V1_CONTROLLERS.map((c) => openSync(join(this.dirs[c], "cgroup.procs"), "w"));
  }

  async reset(limits: { memoryKb: number; processes: number }): Promise<void> {
    assertEmpty(join(this.dirs.pids, "cgroup.procs"));
    const memory = (file: string) => join(this.dirs.memory, file);
    // Earlier runs leave some kernel memory charged here (cached dentries and the like, freed under
    // pressure). Emptying costs ~0.75 ms even when there is nothing to empty (it drains every CPU's
    // caches), so it waits until FORCE_EMPTY_ABOVE: until then a run's peak may include that much of it.
    // (Subtracting it instead is wrong both ways: part of it is per-CPU precharge that vanishes during
    // the run, so a small program's peak came out as 0.)
    if (Number(read(memory("memory.usage_in_bytes"))) > FORCE_EMPTY_ABOVE) {
      try {
        write(memory("memory.force_empty"), 0);
      } catch {
        /* busy or unsupported: the peak is merely higher */
      }
    }
    // The limits stay in the group: the cases of a record, which share them, write them once.
    const wanted = `${limits.memoryKb}/${limits.processes}`;
    if (this.applied !== wanted) {
      const bytes = limits.memoryKb * 1024;
      // memsw must stay ≥ the memory limit at every step.
      if (this.memsw) write(memory("memory.memsw.limit_in_bytes"), -1);
      write(memory("memory.limit_in_bytes"), bytes);
      if (this.memsw) write(memory("memory.memsw.limit_in_bytes"), bytes);
      write(join(this.dirs.pids, "pids.max"), limits.processes);
      this.applied = wanted;
    }
    write(memory("memory.max_usage_in_bytes"), 0);
    write(join(this.dirs.cpuacct, "cpuacct.usage"), 0);
    // The count as the last run left it, unless this is a new container's first run.
    this.oomBefore ??= this.oomKills();
  }

  async finish(): Promise<RunAccount> {
    await killAll(join(this.dirs.pids, "cgroup.procs"));
    const ooms = this.oomKills();
    const account = {
      cpuMs: Math.round(Number(read(join(this.dirs.cpuacct, "cpuacct.usage"))) / 1e6),
      memoryKb: Math.ceil(Number(read(join(this.dirs.memory, "memory.max_usage_in_bytes"))) / 1024),
      oomKilled: ooms > (this.oomBefore ?? ooms),
    };
    this.oomBefore = ooms;
    return account;
  }

  private oomKills(): number {
    return Number(/oom_kill (\d+)/.exec(read(join(this.dirs.memory, "memory.oom_control")))?.[1] ?? 0);
  }

  async remove(): Promise<void> {
    for (const dir of Object.values(this.dirs)) await removeGroup(dir);
  }
}

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

  constructor(private readonly slot: string) {
    mkdirSync(slot, { recursive: true });
    enableControllers(slot);
    this.run = join(slot, "run");
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
    assertEmpty(join(this.run, "cgroup.procs"));
    write(join(this.run, "memory.max"), limits.memoryKb * 1024);
    if (existsSync(join(this.run, "memory.swap.max"))) write(join(this.run, "memory.swap.max"), 0);
    write(join(this.run, "pids.max"), limits.processes);
    if (this.peak !== null) {
      // Page cache an earlier run left charged here would count in this run's peak.
      try {
        write(join(this.run, "memory.reclaim"), "1G");
      } catch {
        /* nothing to reclaim, or an older kernel: the peak is merely higher */
      }
      writeSync(this.peak, "reset");
    }
    this.usecBefore = this.usec();
    this.oomBefore = this.oomKills();
  }

  async finish(): Promise<RunAccount> {
    await killAll(join(this.run, "cgroup.procs"), join(this.run, "cgroup.kill"));
    const peak = this.peak === null ? read(join(this.run, "memory.peak")) : readAt(this.peak);
    return {
      cpuMs: Math.round((this.usec() - this.usecBefore) / 1000),
      memoryKb: Math.ceil(Number(peak) / 1024),
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
    await removeGroup(this.run);
    await removeGroup(this.slot);
  }
}

/** A file read from its start through an open descriptor (memory.peak's reset is per descriptor). */
function readAt(fd: number): string {
  const buffer = Buffer.alloc(64);
  return buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
}

/** A group about to take a run must hold no process: one would be a run's leftover, measured as this one's. */
function assertEmpty(procs: string): void {
  const left = read(procs).trim();
  if (left) throw new Error(`the run cgroup still holds processes ${left.split("\n").join(", ")}`);
}

/** A leaf that holds no process, removed at once (a fresh container's group; its old one is empty). */
function removeGroupNow(dir: string): void {
  try {
    rmdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** SIGKILLs every process left in a group and waits (bounded) until it is empty. */
async function killAll(procs: string, killFile?: string): Promise<void> {
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

async function removeGroup(dir: string): Promise<void> {
  for (let round = 0; round < 100; round++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
      await Bun.sleep(10);
    }
  }
}

export const closeFds = (fds: number[]) => {
  for (const fd of fds) closeSync(fd);
};
