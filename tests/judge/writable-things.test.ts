import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container } from "../../src/judge/sandbox/container";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";

// Issue 52: everything a run can write, kept by a test. A program run exactly as a submission runs lists what
// it can open for writing (tests/fixtures/writable/list.c); each must be in ALLOWED with the reason it cannot
// reach a later run. A second program reads what a run could move, moves it, and a second run in the same
// container must read what the first read (counters.c).
const UID = SLOT_UID_BASE + 23;
const LIMITS: Limits = { cpuMs: 20_000, wallMs: 30_000, memoryKb: 128 * 1024, fileBytes: 8 << 20, processes: 32 };
const FIXTURES = join(import.meta.dir, "..", "fixtures", "writable");
const root = mkdtempSync(join(tmpdir(), "joj-writable-"));
const bin = join(root, "bin");
let cgroup: RunCgroup;
let container: Container;
let runner: string;
let list: string;
let counters: string;

type Why =
  | "dies with the process"
  | "made anew for every run"
  | "reset and checked after every run"
  | "a device that keeps nothing"
  | "opens, but every write is refused"
  | "not writable";
const ALLOWED = new Map<string, { why: Why; how: string }>();
const allow = (why: Why, how: string, paths: readonly string[]) => {
  for (const path of paths) ALLOWED.set(path, { why, how });
};

// Its own process's and threads' files (in /proc/self and each /proc/self/task/<tid>): gone with the last of
// them, and the runs' init kills and reaps every one before the reply.
const TASK_FILES = [
  "attr/current",
  "attr/exec",
  "attr/fscreate",
  "attr/keycreate",
  "attr/sockcreate",
  "clear_refs",
  "comm",
  "loginuid",
  "mem",
  "oom_adj",
  "oom_score_adj",
  "sched",
];
allow("dies with the process", "its own task, memory or limits (loginuid: a write is refused)", [
  ...[...TASK_FILES, "coredump_filter", "timerslack_ns"].map((name) => `/proc/self/${name}`),
  ...TASK_FILES.map((name) => `/proc/self/task/<tid>/${name}`),
]);
allow("dies with the process", "a pressure trigger lives as long as the descriptor it was written to", [
  "/proc/pressure/cpu",
  "/proc/pressure/io",
  "/proc/pressure/memory",
]);
// The user namespace is the container's, but each map takes one write, ever: bubblewrap wrote uid_map and
// gid_map; projid_map needs the parent namespace's, which is empty. Time offsets need CAP_SYS_TIME.
allow("opens, but every write is refused", "counters.c writes each; a second run reads them unchanged", [
  ...["uid_map", "gid_map", "projid_map"].flatMap((map) => [`/proc/self/${map}`, `/proc/self/task/<tid>/${map}`]),
  "/proc/self/timens_offsets",
]);
// bubblewrap's IPC namespace belongs to its outer user namespace, whose root is the slot uid, so there a program
// may write these; no run is in it: the runner makes the runs' IPC namespace before the first run (and a new one
// after any run that made a SysV object), in the inner user namespace (uid 0 unmapped), where they are read-only
// to a program (runner-reset.c). Listed as not writable: a run that could write one fails this test.
allow("not writable", "the runs' IPC namespace is the runner's, where no run is root", [
  ...["shmmax", "shmall", "shmmni", "shm_rmid_forced", "msgmax", "msgmnb", "msgmni", "sem", "auto_msgmni"].map(
    (name) => `/proc/sys/kernel/${name}`,
  ),
  ...["msg_default", "msg_max", "msgsize_default", "msgsize_max", "queues_max"].map(
    (name) => `/proc/sys/fs/mqueue/${name}`,
  ),
]);
allow("reset and checked after every run", "its own session's; the runner checks its own autogroup's nice", [
  "/proc/self/autogroup",
]);
allow("reset and checked after every run", "0666, but a write needs CAP_CHECKPOINT_RESTORE; reset after a run", [
  "/proc/sys/kernel/ns_last_pid",
]);
allow("made anew for every run", "a tmpfs mounted for the run and unmounted after it", [
  "mount /work tmpfs",
  "mount /tmp tmpfs",
  "mount /dev/shm tmpfs",
]);
allow("a device that keeps nothing", "discards, or mixes into the pool unread, or no terminal to open", [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
  "/dev/tty",
]);
allow("dies with the process", "a new terminal pair, closed with its last descriptor", ["/dev/pts/ptmx"]);
allow("not writable", "the UTS namespace's names and the IPC id cursors need capabilities it lacks", [
  "/proc/sys/kernel/hostname",
  "/proc/sys/kernel/domainname",
  "/proc/sys/kernel/shm_next_id",
  "/proc/sys/kernel/msg_next_id",
  "/proc/sys/kernel/sem_next_id",
  "/proc/self/setgroups",
]);

async function build(name: string): Promise<string> {
  const out = join(bin, name);
  const gcc = Bun.spawn(["gcc", "-O1", "-Wall", "-o", out, join(FIXTURES, `${name}.c`)], { stderr: "pipe" });
  if ((await gcc.exited) !== 0) throw new Error(await new Response(gcc.stderr).text());
  return out;
}

/** One run in the shared container, the binary staged as the judge stages a program; its stdout's lines. */
async function run(binary: string): Promise<string[]> {
  const result = await container.run({
    argv: ["./a.out"],
    stdin: null,
    limits: LIMITS,
    files: [{ path: "a.out", mode: 0o755, hostPath: binary }],
  });
  expect(result.diagnostics).toBe("");
  expect(result.exitCode).toBe(0);
  return new TextDecoder().decode(result.stdout).split("\n").filter(Boolean);
}

/** Lines starting with `word`, each as the rest of the line after it. */
const after = (lines: string[], word: string) =>
  lines.filter((line) => line.startsWith(`${word} `)).map((line) => line.slice(word.length + 1));

beforeAll(async () => {
  chmodSync(root, 0o711);
  mkdirSync(bin);
  runner = await ensureRunner(bin);
  [list, counters] = await Promise.all([build("list"), build("counters")]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`writable-${UID}`);
  container = Container.start({ runner, stageDir: join(root, "stage"), uid: UID, cgroup, tmpBytes: 8 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

describe("what a run can write", () => {
  test("everything it can open for writing is on the allow-list, with why it cannot reach the next run", async () => {
    // Twice: a container's first run may see more than the later ones (bubblewrap's own namespaces).
    const runs = [await run(list), await run(list)];
    const lines = runs.flat();
    expect(lines).not.toContain("timeout");
    const walked = new Map(after(lines, "walked").map((line) => line.split(" ") as [string, string]));
    expect(Number(walked.get("/proc"))).toBeGreaterThan(500);
    const writable = [...new Set(after(lines, "writable"))].sort();
    // Not on the list, or listed as not writable: either way nothing says why it cannot reach the next run.
    const unexpected = writable.filter((thing) => (ALLOWED.get(thing)?.why ?? "not writable") === "not writable");
    const table = writable.map((thing) => {
      const allowed = ALLOWED.get(thing);
      return `${thing.padEnd(40)} ${allowed ? `${allowed.why}: ${allowed.how}` : "NOT ON THE LIST"}`;
    });
    console.log(`what a run can write:\n  ${table.join("\n  ")}`);
    const onlyFirst = after(runs[0], "writable").filter((thing) => !runs[1].includes(`writable ${thing}`));
    if (onlyFirst.length > 0) console.log(`the container's first run only: ${onlyFirst.join(", ")}`);
    const missing = [...ALLOWED].filter(([thing, { why }]) => why !== "not writable" && !writable.includes(thing));
    if (missing.length > 0) console.log(`allowed, not found here: ${missing.map(([thing]) => thing).join(", ")}`);
    expect(unexpected).toEqual([]);
  });

  test("its own limits: it may lower any, raise none past its hard limit; its session and settings", async () => {
    const lines = await run(list);
    const rlimits = after(lines, "rlimit").map((line) => line.split(" "));
    expect(rlimits.length).toBeGreaterThanOrEqual(16);
    expect(rlimits.filter((fields) => fields[4] !== "0").map((fields) => fields[0])).toEqual([]);
    console.log([...after(lines, "setting"), ...after(lines, "session").map((s) => `pid pgrp sid ${s}`)].join("\n"));
    const settings = after(lines, "setting").map((line) => line.split(" ") as [string, string]);
    for (const name of ["hostname", "domainname"])
      expect(settings.find(([path]) => path === `/proc/sys/kernel/${name}`)?.[1]).toBe("0");
  });
});

describe("what a run can move and read back", () => {
  test("a second run reads the same counters and settings after the first moved every one of them", async () => {
    // A new container: its first run is the one that may write the most (bubblewrap's IPC namespace).
    await container.close();
    container = Container.start({ runner, stageDir: join(root, "stage"), uid: UID, cgroup, tmpBytes: 8 << 20 });
    const first = await run(counters);
    const second = await run(counters);
    console.log(`first run:\n  ${first.join("\n  ")}\nsecond run:\n  ${second.join("\n  ")}`);
    // The first run moved each thing as far as it could: 300 SysV objects, 200 O_TMPFILE files, 200 forks.
    const moved = new Map(after(first, "moved").map((line) => [line.split(" ")[0], line.split(" ")[1]]));
    expect([moved.get("sysv"), moved.get("tmpfiles"), moved.get("forks"), moved.get("autogroup")]).toEqual([
      "300",
      "200",
      "200",
      "1",
    ]);
    expect(after(first, "refused")).toEqual(["5 of 5"]);
    const read = (lines: string[]) =>
      new Map(after(lines, "read").map((line) => line.split(/ (.*)/s) as [string, string]));
    const [was, is] = [read(first), read(second)];
    const changed = [...was]
      .filter(([name, value]) => is.get(name) !== value)
      .map(([name, value]) => `${name}: ${value} → ${is.get(name)}`);
    // A shared inode's times: the second run must not read what the first one set.
    const times = (lines: string[], word: string) =>
      new Map(after(lines, word).map((line) => line.split(/ (.*)/s) as [string, string]));
    const [touched, seen] = [times(first, "touched"), times(second, "time")];
    const leaked = [...touched]
      .filter(([path, value]) => !value.startsWith("refused") && seen.get(path) === value)
      .map(([path, value]) => `${path}: times ${value} set by the first run`);
    expect([...changed, ...leaked]).toEqual([]);
  });
});
