import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container } from "../../src/judge/sandbox/container";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";
import { compileC } from "../helpers/c-programs";

// The spares' maker (runner-spare.c): a thread of the runner that loaded the seccomp filter once and clones
// each next program's process, which inherits it. Its namespaces are the ones it started in, so once a run
// made a SysV object and the runner moved to a new IPC namespace, the maker joins it. A signal a run sends
// the maker is dropped or taken before the next spare, and a spare's RLIMIT_NPROC counts the maker in.
const UID = SLOT_UID_BASE + 29;
const LIMITS: Limits = { cpuMs: 2000, wallMs: 4000, memoryKb: 64 * 1024, fileBytes: 1 << 20, processes: 8 };
const root = mkdtempSync(join(tmpdir(), "joj-spare-maker-"));
let cgroup: RunCgroup;
let container: Container;
let runner: string;

// Makes a SysV segment under the key given (0: none), and says whether one under the key 0x4a4f57 is there,
// which IPC namespace it is in, and its seccomp state.
const PROGRAM = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int key = argc > 1 ? (int)strtol(argv[1], NULL, 0) : 0;
  printf("seen %d\\n", shmget(0x4a4f57, 0, 0) >= 0);
  if (key) printf("made %d\\n", shmget(key, 4096, IPC_CREAT | 0600) >= 0);
  char ns[64] = "";
  if (readlink("/proc/self/ns/ipc", ns, sizeof ns - 1) < 0) strcpy(ns, "?");
  printf("ipc %s\\n", ns);
  FILE *status = fopen("/proc/self/status", "r");
  char line[256];
  while (status && fgets(line, sizeof line, status))
    if (!strncmp(line, "Seccomp:", 8) || !strncmp(line, "Seccomp_filters:", 16) || !strncmp(line, "NoNewPrivs:", 11))
      fputs(line, stdout);
  return 0;
}
`;

// Forks until the kernel refuses, each child waiting, and says how many it got.
const FORKS = `#include <stdio.h>
#include <unistd.h>
int main(void) {
  int made = 0;
  for (; made < 64; made++) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) { pause(); _exit(0); }
  }
  printf("forks %d\\n", made);
  return 0;
}
`;

// Sends the runner's threads (the init's, IDs 1 to 8) SIGCHLD, SIGUSR1 and 2,000 queued real-time signals,
// then says how many signals the slot uid has queued (SigQ); run alone, only the latter.
const SIGNALS = `#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc > 1)
    for (int tid = 1; tid <= 8; tid++) {
      syscall(SYS_tgkill, 1, tid, SIGCHLD);
      syscall(SYS_tgkill, 1, tid, SIGUSR1);
      for (int i = 0; i < 250; i++) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_code = SI_QUEUE;
        info.si_pid = getpid();
        info.si_uid = getuid();
        syscall(SYS_rt_tgsigqueueinfo, 1, tid, SIGRTMIN, &info);
      }
    }
  FILE *status = fopen("/proc/self/status", "r");
  char line[256];
  while (status && fgets(line, sizeof line, status))
    if (!strncmp(line, "SigQ:", 5)) fputs(line, stdout);
  return 0;
}
`;

let binary: string;
let forks: string;
let signals: string;
async function run(...args: string[]) {
  return runOf(binary, args);
}
async function runOf(program: string, args: string[], limits: Partial<Limits> = {}) {
  const result = await container.run({
    argv: ["./a.out", ...args],
    stdin: null,
    limits: { ...LIMITS, ...limits },
    files: [{ path: "a.out", mode: 0o755, hostPath: program }],
  });
  expect(result.diagnostics).toBe("");
  expect(result.exitCode).toBe(0);
  const text = new TextDecoder().decode(result.stdout);
  const field = (name: string) => text.match(new RegExp(`^${name}:?\\s+(.*)$`, "m"))?.[1];
  return { text, seen: field("seen"), ipc: field("ipc"), filter: [field("Seccomp"), field("Seccomp_filters")] };
}

beforeAll(async () => {
  chmodSync(root, 0o711);
  const bin = join(root, "bin");
  mkdirSync(bin);
  runner = await ensureRunner(bin);
  [binary, forks, signals] = await Promise.all([
    compileC(bin, "ipc", PROGRAM),
    compileC(bin, "forks", FORKS),
    compileC(bin, "signals", SIGNALS),
  ]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`maker-${UID}`);
  container = Container.start({ runner, stageDir: join(root, "stage"), uid: UID, cgroup, tmpBytes: 8 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

describe("the spares' maker", () => {
  test("a program cloned by it runs under the filter it loaded once: one filter", async () => {
    const first = await run();
    expect(first.filter).toEqual(["2", "1"]);
    expect(first.text).toContain("NoNewPrivs:\t1\n");
  });

  test("after a run's SysV object, the next program is in the new IPC namespace, and still filtered", async () => {
    const forksBefore = (await runOf(forks, [])).text;
    expect(forksBefore).toMatch(/^forks [1-9]\d*\n$/);
    const before = await run();
    // Run A makes a segment: the runner removes it and makes a new namespace.
    const a = await run("0x4a4f56");
    expect(a.text).toContain("made 1\n");
    expect(a.ipc).toBe(before.ipc);
    // Run B is in the new namespace (the maker's would be the old one), and makes the segment C looks for.
    const b = await run("0x4a4f57");
    expect(b.text).toContain("made 1\n");
    expect(b.ipc).not.toBe(a.ipc);
    expect(b.filter).toEqual(["2", "1"]);
    // Run B's segment was seen and removed by the runner: run C, in a newer namespace still, finds none.
    const c = await run();
    expect(c.seen).toBe("0");
    expect(c.ipc).not.toBe(b.ipc);
    expect(c.filter).toEqual(["2", "1"]);
    // The maker is still there: a program may make exactly as many processes as before.
    expect((await runOf(forks, [])).text).toBe(forksBefore);
    expect(container.usable).toBe(true);
  });

  test("signals a run sends the runner's threads are not left queued for the next run", async () => {
    const baseline = (await runOf(signals, [])).text;
    expect(baseline).toMatch(/^SigQ:\t0\//);
    await runOf(signals, ["send"]);
    expect((await runOf(signals, [])).text).toBe(baseline);
    expect(container.usable).toBe(true);
  });

  test("a spare's process limit counts the maker in: as many processes as a forked run, with little memory", async () => {
    const spared = (await runOf(forks, [])).text;
    // The program and its children, with the runner's process outside the runs' namespace and the runs'
    // init, are the uid's tasks its RLIMIT_NPROC counts: as before there was a maker, which is added to it.
    expect(spared).toBe(`forks ${LIMITS.processes - 3}\n`);
    // Under SPARE_MIN_KB a run forks (a spare shares the runner's memory, which an OOM kill would take too).
    const forked = (await runOf(forks, [], { memoryKb: 8 * 1024 })).text;
    expect(forked).toBe(spared);
  });

  test("a run whose group runs out of memory before its exec ends in its own OOM, and the container goes on", async () => {
    // A fresh container and group: its first run finds the group nearly empty, so a tiny limit is set.
    const fresh = detectCgroups("joj-judge-test").forSlot(`maker-oom-${UID}`);
    const tinyBox = Container.start({
      runner,
      stageDir: join(root, "stage-oom"),
      uid: UID + 1,
      cgroup: fresh,
      tmpBytes: 8 << 20,
    });
    try {
      const tiny = await tinyBox.run({
        argv: ["./a.out"],
        stdin: null,
        limits: { ...LIMITS, memoryKb: 16 },
        files: [{ path: "a.out", mode: 0o755, hostPath: binary }],
      });
      expect(tiny.lost).toBe(false);
      expect(tinyBox.usable).toBe(true);
    } finally {
      await tinyBox.close();
      await fresh.remove();
    }
  });
});
