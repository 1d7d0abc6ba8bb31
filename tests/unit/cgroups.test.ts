import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CgroupDirty,
  CgroupUnavailable,
  detectCgroups,
  openV2,
  parseMounts,
  parseOwnGroups,
} from "../../src/judge/sandbox/cgroups/cgroups";
import { assertNearlyEmpty, leftCharged, peakKb } from "../../src/judge/sandbox/cgroups/cgroup-common";

describe("finding the cgroup hierarchies", () => {
  test("a v1 hybrid host (this project's CI): memory, pids and cpuacct hierarchies, the unified one empty", () => {
    const { v1, v2 } = parseMounts(
      [
        "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
        "32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct",
        "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
        "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
        "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
      ].join("\n"),
    );
    expect(v1.get("memory")).toEqual({ root: "/", at: "/sys/fs/cgroup/memory" });
    expect(v1.get("cpuacct")?.at).toBe("/sys/fs/cgroup/cpuacct");
    expect(v2).toEqual({ root: "/", at: "/sys/fs/cgroup/unified" });
    const own = parseOwnGroups("8:pids:/\n4:memory:/process_api/1715\n2:cpuacct:/\n1:cpu,cpuacct:/\n0::/\n");
    expect(own.get("memory")).toBe("/process_api/1715");
    expect(own.get("")).toBe("/");
  });

  test("a v2 host, and a container whose mount root is its own group", () => {
    const { v2 } = parseMounts("29 23 0:26 /docker/abc /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate");
    expect(v2).toEqual({ root: "/docker/abc", at: "/sys/fs/cgroup" });
    expect(parseOwnGroups("0::/docker/abc\n").get("")).toBe("/docker/abc");
  });
});

test("with neither v2 controllers nor v1 hierarchies the judge refuses, saying what to enable", () => {
  const noCgroups = () =>
    detectCgroups("joj-judge", { mountinfo: "22 1 0:21 / /proc rw - proc proc rw\n", cgroup: "0::/\n" });
  expect(noCgroups).toThrow(CgroupUnavailable);
  expect(noCgroups).toThrow(/Enable cgroup v2 with the memory, pids and cpu controllers/);
  const v1WithoutPids = () =>
    detectCgroups("joj-judge", {
      mountinfo:
        "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n32 30 0:29 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n",
      cgroup: "4:memory:/\n2:cpuacct:/\n",
    });
  expect(v1WithoutPids).toThrow(/cgroup v1 has no pids hierarchy/);
});

// The v2 driver against a directory laid out like /sys/fs/cgroup (this machine runs v1): what it writes
// and what it reads, with the kernel's files written by the test.
describe("the cgroup v2 driver", () => {
  const root = mkdtempSync(join(tmpdir(), "joj-cgroup2-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, "cgroup.controllers"), "cpuset cpu io memory pids\n");
  writeFileSync(join(root, "cgroup.subtree_control"), "");
  writeFileSync(join(root, "cgroup.procs"), "");

  test("turns the controllers on, limits the run in the container's leaf, and reads CPU, peak and OOM kills", async () => {
    const host = openV2(root, "joj-judge");
    expect(readFileSync(join(root, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids +cpu");
    const group = host.forSlot("slot-60000");
    const slot = join(root, "joj-judge", "slot-60000");
    expect(readFileSync(join(slot, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids +cpu");
    const run = join(slot, "run");
    const fds = group.open();
    expect(fds).toHaveLength(1);
    // No memory.peak to reset through a descriptor (a kernel before 6.12; here, a directory the kernel does
    // not fill): the leaf serves one container of one run.
    expect(group.reusable).toBe(false);
    // What the kernel counted before the run: the run's figures are the change.
    writeFileSync(join(run, "cgroup.procs"), "");
    writeFileSync(join(run, "memory.current"), String(300 << 10));
    writeFileSync(join(run, "cpu.stat"), "usage_usec 100000\nuser_usec 100000\nsystem_usec 0\n");
    writeFileSync(join(run, "memory.events"), "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    await group.reset({ memoryKb: 65536, processes: 16 });
    expect(readFileSync(join(run, "memory.max"), "utf8")).toBe(String(64 << 20));
    expect(readFileSync(join(run, "pids.max"), "utf8")).toBe("16");
    writeFileSync(join(run, "cpu.stat"), "usage_usec 912345\nuser_usec 900000\nsystem_usec 12345\n");
    writeFileSync(join(run, "memory.peak"), String(70 << 20));
    writeFileSync(join(run, "memory.events"), "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\n");
    expect(await group.finish()).toEqual({ cpuMs: 812, memoryKb: 70 * 1024, oomKilled: true });
    // A group still holding memory is asked to reclaim it; one that cannot give it back is dirty, and never
    // reset for another run (here the kernel's counter stays where the test put it).
    writeFileSync(join(run, "memory.current"), String(8 << 20));
    await expect(group.reset({ memoryKb: 65536, processes: 16 })).rejects.toThrow(CgroupDirty);
    expect(readFileSync(join(run, "memory.reclaim"), "utf8")).toBe("1G");
    writeFileSync(join(run, "memory.current"), "0");
    // A group still holding a process is never reset for another run either.
    writeFileSync(join(run, "cgroup.procs"), "4242\n");
    await expect(group.reset({ memoryKb: 65536, processes: 16 })).rejects.toThrow("still holds processes 4242");
    for (const fd of fds) closeSync(fd);
    expect(existsSync(join(root, "joj-judge"))).toBe(true);
  });
});

describe("what an earlier run left charged (leftCharged)", () => {
  // memory.stat as v1 and v2 write it; only the named page-cache fields count, never the kernel's own
  // memory or a total_ line of the same stem.
  const v1 = "cache 405504\nrss 8192\nrss_huge 0\nshmem 0\nmapped_file 0\ntotal_cache 999999999\ntotal_rss 88\n";
  const v2 = "anon 4096\nfile 131072\nkernel 9999999\nkernel_stack 16384\nslab 40960\nsock 0\n";

  test("sums the named fields and nothing else", () => {
    expect(leftCharged(v1, ["cache", "rss"])).toBe(405504 + 8192);
    expect(leftCharged(v2, ["anon", "file"])).toBe(4096 + 131072);
  });

  test("an empty, truncated or garbled table is nothing left, not NaN", () => {
    expect(leftCharged("", ["cache", "rss"])).toBe(0);
    expect(leftCharged("cache\nrss notanumber\n\u0000cache 12\n", ["cache", "rss"])).toBe(0);
  });
});

describe("a group's leftovers before the next run (assertNearlyEmpty)", () => {
  // A counter that falls by `step` bytes each time it is read after a reclaim: what the kernel frees after a
  // grace period (the task structures of killed processes, an IPC namespace) arriving over a few reads.
  const falling = (start: number, step: number, floor: number) => {
    let now = start;
    let reclaims = 0;
    return {
      charged: () => now,
      reclaim: () => {
        reclaims++;
        now = Math.max(floor, now - step);
      },
      reclaims: () => reclaims,
    };
  };

  test("what the kernel keeps (under 1 MiB) is left at once, after one reclaim", async () => {
    const group = falling(600 << 10, 0, 400 << 10);
    await assertNearlyEmpty(group.charged, group.reclaim);
    expect(group.reclaims()).toBe(1);
  });

  test("1.5 MiB that the kernel frees a moment later is waited for, so the next run's peak does not count it", async () => {
    const group = falling(1536 << 10, 256 << 10, 300 << 10);
    await assertNearlyEmpty(group.charged, group.reclaim);
    expect(group.charged()).toBeLessThanOrEqual(1 << 20);
    expect(group.reclaims()).toBeGreaterThan(1);
  });

  test("more than 2 MiB that stays is a dirty group; under 2 MiB that stays is let go after the rounds", async () => {
    const stuck = falling(3 << 20, 0, 3 << 20);
    await expect(assertNearlyEmpty(stuck.charged, stuck.reclaim)).rejects.toThrow(CgroupDirty);
    const kept = falling(1536 << 10, 0, 1536 << 10);
    await assertNearlyEmpty(kept.charged, kept.reclaim);
    expect(kept.reclaims()).toBeGreaterThan(1);
  });
});

describe("kernel memory still to be freed after a reset's reclaim (assertNearlyEmpty's pending)", () => {
  // The group's usage as a reclaim leaves it, read after read, and its kernel memory falling by `step` a reclaim,
  // as the task structures of 200 forks do for ~35 ms after the run.
  const group = (usage: number[], start: number, step: number) => {
    let kernel = start;
    let reads = 0;
    let reclaims = 0;
    return {
      charged: () => usage[Math.min(reads++, usage.length - 1)],
      reclaim: () => {
        reclaims++;
        kernel = Math.max(0, kernel - step);
      },
      pending: () => kernel,
      reclaims: () => reclaims,
    };
  };

  test("after a run that left over 1 MiB, falling kernel memory is waited for until under 256 KiB", async () => {
    const g = group([1536 << 10, 900 << 10], 1060 << 10, 200 << 10);
    await assertNearlyEmpty(g.charged, g.reclaim, true, g.pending);
    expect(g.pending()).toBeLessThanOrEqual(256 << 10);
    expect(g.reclaims()).toBe(5);
  });

  test("an honest run's kernel memory (under 1 MiB in all after the reclaim) is not waited for", async () => {
    const g = group([900 << 10], 700 << 10, 200 << 10);
    await assertNearlyEmpty(g.charged, g.reclaim, true, g.pending);
    expect(g.reclaims()).toBe(1);
  });

  test("kernel memory that stays is let go after the rounds, not called dirty", async () => {
    const g = group([1536 << 10, 500 << 10], 400 << 10, 0);
    await assertNearlyEmpty(g.charged, g.reclaim, true, g.pending);
    expect(g.reclaims()).toBe(21);
  });
});

describe("a run's peak (peakKb)", () => {
  test("less what an earlier run left, unless the group reached its limit", () => {
    const limit = 64 << 20;
    expect(peakKb(10 << 20, 16 << 10, limit)).toBe((10 << 10) - 16);
    expect(peakKb(limit, 16 << 10, limit)).toBe(64 << 10);
    expect(peakKb(8 << 10, 64 << 10, limit)).toBe(0);
    expect(peakKb(10 << 20, 0, Number.POSITIVE_INFINITY)).toBe(10 << 10);
  });
});
