import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container } from "../../src/judge/sandbox/container";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { CgroupDirty, detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";
import { processesOf } from "../../src/judge/sandbox/slot-processes";
import { CONTAINER_PROCESSES, containerProcesses } from "../helpers/container-processes";
import { runInSlot } from "../../src/judge/sandbox/slots";
import type { Slot } from "../../src/judge/sandbox/slots";
import { compileC } from "../helpers/c-programs";

// Run N+1 in a slot's living container looks for anything run N left behind. Each planted thing has its
// own defence (runner.c's header): the per-run /work, PID, mount and IPC namespaces, the read-only root,
// the runner's reset of /tmp and /dev/shm, the keeper's end, the cgroup's reset, the seccomp filter.
const UID = SLOT_UID_BASE + 11;
const LIMITS: Limits = { cpuMs: 2000, wallMs: 4000, memoryKb: 128 * 1024, fileBytes: 1 << 20, processes: 32 };
const root = mkdtempSync(join(tmpdir(), "joj-container-"));
const stageDir = join(root, "stage");
const bin = join(root, "bin");
let runner: string;
let cgroup: RunCgroup;
let container: Container;

/** Compiles a C program on the host, once. */
const build = (name: string, source: string) => compileC(bin, name, source);

/** One run in the shared container, the binary staged as the judge stages a program. */
async function run(binary: string, limits: Partial<Limits> = {}) {
  const result = await container.run({
    argv: ["./a.out"],
    stdin: null,
    limits: { ...LIMITS, ...limits },
    files: [{ path: "a.out", mode: 0o755, hostPath: binary }],
  });
  expect(result.diagnostics).toBe("");
  return { result, text: new TextDecoder().decode(result.stdout) };
}

const PLANT = `#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>
static int made(const char *path) { int fd = open(path, O_CREAT | O_WRONLY, 0644); if (fd < 0) return 0; write(fd, "x", 1); close(fd); return 1; }
int main(void) {
  /* Files everywhere it might write. */
  printf("tmp %d work %d root %d dev %d\\n", made("/tmp/left"), made("/work/left"), made("/left"), made("/dev/left"));
  int shm = shm_open("/joj-left", O_CREAT | O_RDWR, 0600);
  printf("posix-shm %d\\n", shm >= 0);
  mqd_t mq = mq_open("/joj-left", O_CREAT | O_RDWR, 0600, NULL);
  printf("mqueue %d\\n", mq != (mqd_t)-1);
  printf("sysv %d %d %d\\n", shmget(0x4a4f4a, 4096, IPC_CREAT | 0600) >= 0, semget(0x4a4f4a, 1, IPC_CREAT | 0600) >= 0,
         msgget(0x4a4f4a, IPC_CREAT | 0600) >= 0);
  /* The runner's state, which the next program would inherit: each must be refused. */
  struct rlimit few = { 16, 16 };
  cpu_set_t one; CPU_ZERO(&one); CPU_SET(0, &one);
  printf("runner %d %d %d %d\\n", prlimit(1, RLIMIT_NOFILE, &few, NULL), setpriority(PRIO_PROCESS, 1, 19),
         setpriority(PRIO_USER, 0, 19), sched_setaffinity(1, sizeof one, &one));
  /* Its own dispositions and limits, which end with it. */
  signal(SIGPIPE, SIG_IGN); signal(SIGTERM, SIG_IGN);
  setrlimit(RLIMIT_NOFILE, &few);
  /* 48 MiB touched, and a daemon in a session of its own that would live for a minute. */
  char *hog = malloc(48 << 20); memset(hog, 1, 48 << 20);
  if (fork() == 0) { setsid(); if (fork() == 0) { sleep(60); _exit(0); } _exit(0); }
  sleep(1);
  fflush(stdout);
  return 0;
}
`;

const LOOK = `#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>
extern char **environ;
static int there(const char *path) { return access(path, F_OK) == 0; }
int main(void) {
  printf("files %d %d %d %d %d\\n", there("/tmp/left"), there("/work/left"), there("/left"), there("/dev/left"),
         there("/dev/shm/joj-left"));
  printf("mqueue %d\\n", mq_open("/joj-left", O_RDONLY) != (mqd_t)-1);
  printf("sysv %d %d %d\\n", shmget(0x4a4f4a, 0, 0) >= 0, semget(0x4a4f4a, 0, 0) >= 0, msgget(0x4a4f4a, 0) >= 0);
  int processes = 0; DIR *proc = opendir("/proc"); struct dirent *e;
  while ((e = readdir(proc))) if (atoi(e->d_name) > 0) processes++;
  printf("processes %d\\n", processes);
  struct rlimit nofile; getrlimit(RLIMIT_NOFILE, &nofile);
  cpu_set_t cpus; sched_getaffinity(0, sizeof cpus, &cpus);
  printf("state nofile=%llu nice=%d cpus=%d\\n", (unsigned long long)nofile.rlim_cur, getpriority(PRIO_PROCESS, 0), CPU_COUNT(&cpus));
  int handled = 0; sigset_t mask; sigprocmask(SIG_BLOCK, NULL, &mask);
  for (int s = 1; s < 32; s++) { struct sigaction a; if (sigaction(s, NULL, &a) == 0 && a.sa_handler != SIG_DFL) handled++; if (sigismember(&mask, s)) handled++; }
  printf("signals %d\\n", handled);
  for (char **v = environ; *v; v++) printf("env %s\\n", *v);
  return 0;
}
`;

let plant: string;
let look: string;
beforeAll(async () => {
  chmodSync(root, 0o711);
  await Bun.spawn(["mkdir", "-p", bin]).exited;
  runner = await ensureRunner(bin);
  [plant, look] = await Promise.all([build("plant", PLANT), build("look", LOOK)]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`container-${UID}`);
  container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 8 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

describe("a slot's container carries nothing from one run to the next", () => {
  test("a run looking before anything was planted: the baseline", async () => {
    const { text } = await run(look);
    expect(text).toContain("files 0 0 0 0 0\nmqueue 0\nsysv 0 0 0\nprocesses 1\n");
  });

  test("run N plants files, IPC, a daemon, memory and signal changes; run N+1 finds none of it", async () => {
    const baseline = (await run(look)).text;
    const planted = await run(plant);
    // /tmp and /work take files; the root and /dev are read-only; SysV IPC objects are made (in the run's own
    // IPC namespace), POSIX message queues refused; every attempt on the runner's (or the keeper's) limits,
    // priority and CPUs is refused.
    expect(planted.text).toBe("tmp 1 work 1 root 0 dev 0\nposix-shm 1\nmqueue 0\nsysv 1 1 1\nrunner -1 -1 -1 -1\n");
    expect(planted.result.memoryKb).toBeGreaterThan(48 * 1024);
    // The same container takes the next run: nothing about it was suspicious.
    expect(container.usable).toBe(true);
    const after = await run(look);
    expect(after.text).toContain("files 0 0 0 0 0\nmqueue 0\nsysv 0 0 0\nprocesses 1\n");
    // Limits, priority, CPUs, signal dispositions and mask, environment: as before the plant.
    expect(after.text).toBe(baseline);
    expect(after.text).toContain("signals 0\n");
    const env = after.text.split("\n").filter((line) => line.startsWith("env "));
    expect(env.map((line) => line.slice(4).split("=")[0]).sort()).toEqual(["HOME", "LANG", "PATH", "PWD"]);
    // The cgroup was reset: the 48 MiB of run N are not in run N+1's peak.
    expect(after.result.memoryKb).toBeLessThan(8 * 1024);
    expect(container.usable).toBe(true);
  });

  test("the daemon of run N is gone from the host too: only bubblewrap and the runner have the slot uid", async () => {
    await run(plant);
    // bubblewrap (outside), the runner (the sandbox's PID 1), the runs' init and the next run's spare:
    // no sleeping daemon.
    expect(await containerProcesses(UID)).toEqual(CONTAINER_PROCESSES);
  });

  test("a run stopped from outside throws its container away; the slot's next run gets a new one", async () => {
    const slot: Slot = { uid: UID, root, cgroup };
    const tools = { runner, settings: { diskBytes: 8 << 20 } };
    await container.close();
    const first = await runInSlot(slot, tools, { argv: ["/usr/bin/true"], stdin: null, limits: LIMITS });
    expect(first.exitCode).toBe(0);
    const used = slot.container!;
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const stopped = await runInSlot(
      slot,
      tools,
      { argv: ["/usr/bin/sleep", "5"], stdin: null, limits: LIMITS },
      stop.signal,
    );
    expect(stopped.exitCode).not.toBe(0);
    expect(used.usable).toBe(false);
    expect(processesOf(UID)).toEqual([]);
    const next = await runInSlot(slot, tools, { argv: ["/usr/bin/true"], stdin: null, limits: LIMITS });
    expect(next.exitCode).toBe(0);
    expect(slot.container).not.toBe(used);
    await slot.container!.close();
  });
});

describe("a case's /work", () => {
  test("holds the program read-only: no run can change, replace or remove it for the next", async () => {
    const tamper = await build(
      "tamper",
      `#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) { FILE *f = fopen("a.out", "a"); printf("%d %d %d %d\\n", f != NULL, chmod("a.out", 0777),
  unlink("a.out"), rename("a.out", "b")); return 0; }`,
    );
    container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 8 << 20 });
    // The program kept between two runs, as between the cases of a record: staged once.
    const files = [{ path: "a.out", mode: 0o755, hostPath: tamper }];
    const first = await container.run({ argv: ["./a.out"], stdin: null, limits: LIMITS, files });
    expect(new TextDecoder().decode(first.stdout)).toBe("0 -1 -1 -1\n");
    const staged = readdirSync(stageDir);
    const second = await container.run({ argv: ["./a.out"], stdin: null, limits: LIMITS, files });
    expect(new TextDecoder().decode(second.stdout)).toBe("0 -1 -1 -1\n");
    expect(readdirSync(stageDir)).toEqual(staged);
    // A run without it: gone from the stage too.
    await container.run({ argv: ["/usr/bin/true"], stdin: null, limits: LIMITS });
    expect(readdirSync(stageDir)).toEqual([]);
  });
});

describe("a slot whose cgroup cannot be reset", () => {
  test("throws the container away with the failure; the slot's next run gets a new one", async () => {
    // The real group, refusing its next reset as it would with a process left in it.
    let refuse = true;
    const refusing: RunCgroup = Object.create(cgroup, {
      reset: {
        value: async (limits: { memoryKb: number; processes: number }) => {
          if (refuse) {
            refuse = false;
            throw new Error("the run cgroup still holds processes 4242");
          }
          return cgroup.reset(limits);
        },
      },
    });
    const slot: Slot = { uid: UID, root, cgroup: refusing };
    const tools = { runner, settings: { diskBytes: 8 << 20 } };
    const run = { argv: ["/usr/bin/true"], stdin: null, limits: LIMITS };
    await expect(runInSlot(slot, tools, run)).rejects.toThrow("still holds processes");
    const refused = slot.container!;
    expect(refused.usable).toBe(false);
    expect(processesOf(UID)).toEqual([]);
    expect((await runInSlot(slot, tools, run)).exitCode).toBe(0);
    expect(slot.container).not.toBe(refused);
    await slot.container!.close();
  });

  test("found dirty before a run: the container goes and the run is made in a new one, at once", async () => {
    let dirty = true;
    const once: RunCgroup = Object.create(cgroup, {
      reset: {
        value: async (limits: { memoryKb: number; processes: number }) => {
          if (dirty) {
            dirty = false;
            throw new CgroupDirty("the run cgroup holds 4096 KiB a run left, even after reclaim");
          }
          return cgroup.reset(limits);
        },
      },
    });
    const slot: Slot = { uid: UID, root, cgroup: once };
    const tools = { runner, settings: { diskBytes: 8 << 20 } };
    const started = Container.start({ runner, stageDir, uid: UID, cgroup: once, tmpBytes: 8 << 20 });
    slot.container = started;
    const ran = await runInSlot(slot, tools, { argv: ["/usr/bin/true"], stdin: null, limits: LIMITS });
    expect(ran.exitCode).toBe(0);
    expect(started.usable).toBe(false);
    expect(slot.container).not.toBe(started);
    await slot.container!.close();
  });
});

describe("what a hostile program tries on the container itself (a security review's findings)", () => {
  beforeAll(() => {
    // A container of its own: an earlier test closed the shared one.
    container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 8 << 20 });
  });

  test("posting its own stdout over its stderr socket does not hang the run", async () => {
    // A copy of stdout's write end queued in the stderr socket kept stdout from ever ending: the runner
    // waited for an end of file that never came, and the case ended as the judge's fault 10 s later.
    const poster = await build(
      "poster",
      `#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
static void post(void) { char byte = 'x'; char room[CMSG_SPACE(sizeof(int))]; memset(room, 0, sizeof room);
  struct iovec io = { &byte, 1 }; struct msghdr m = { 0 }; m.msg_iov = &io; m.msg_iovlen = 1;
  m.msg_control = room; m.msg_controllen = sizeof room; struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
  int fd = 1; memcpy(CMSG_DATA(c), &fd, sizeof fd); sendmsg(2, &m, MSG_DONTWAIT); }
int main(void) { for (int i = 0; i < 4; i++) if (fork() == 0) { for (;;) post(); }
  usleep(200000); write(1, "done\\n", 5); return 0; }`,
    );
    const { result, text } = await run(poster);
    expect(result.lost).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(text).toBe("done\n");
    expect(container.usable).toBe(true);
  });

  test("changed times, mode or extended attributes of /tmp, /dev/shm or /work do not reach the next run", async () => {
    const changer = await build(
      "changer",
      `#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <fcntl.h>
int main(void) {
  /* Times set to a message first (they are bits the next run could read), then the mode. */
  struct timespec message[2] = { { 4242, 0 }, { 424242, 0 } };
  utimensat(AT_FDCWD, "/dev/shm", message, 0);
  printf("%d %d %d %d\\n", utimensat(AT_FDCWD, "/tmp", message, 0), chmod("/tmp", 0555), chmod("/dev/shm", 0555),
  setxattr("/tmp", "user.left", "from-run-N", 10, 0)); setxattr("/work", "user.left", "from-run-N", 10, 0);
  chmod("/work", 0500); return 0; }`,
    );
    const checker = await build(
      "after-change",
      `#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
int main(void) { struct stat a, b, w; stat("/tmp", &a); stat("/dev/shm", &b); stat("/work", &w); char v[64];
  printf("%o %o %o %ld %ld %d %d\\n", a.st_mode & 07777, b.st_mode & 07777, w.st_mode & 07777,
    (long)getxattr("/tmp", "user.left", v, sizeof v), (long)getxattr("/work", "user.left", v, sizeof v),
    fopen("/tmp/x", "w") != NULL, a.st_mtime == 424242 || a.st_atime == 4242 || b.st_mtime == 424242); return 0; }`,
    );
    // All three are the program's to change (the same uid): /tmp and /dev/shm are made anew, /work is new.
    expect((await run(changer)).text).toBe("0 0 0 0\n");
    expect((await run(checker)).text).toBe("1777 1777 755 -1 -1 1 0\n");
  });
});

describe("a slot whose cgroup serves one run (cgroup v2 before Linux 6.12)", () => {
  test("each run gets a container of its own, and nothing of the last one is left running", async () => {
    const single: RunCgroup = Object.create(cgroup, { reusable: { value: false } });
    const slot: Slot = { uid: UID, root, cgroup: single };
    const tools = { runner, settings: { diskBytes: 8 << 20 } };
    await container.close();
    const run = { argv: ["/usr/bin/true"], stdin: null, limits: LIMITS };
    expect((await runInSlot(slot, tools, run)).exitCode).toBe(0);
    const first = slot.container!;
    expect(first.usable).toBe(false);
    expect(processesOf(UID)).toEqual([]);
    expect((await runInSlot(slot, tools, run)).exitCode).toBe(0);
    expect(slot.container).not.toBe(first);
    expect(processesOf(UID)).toEqual([]);
  });
});
