import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container } from "../../src/judge/sandbox/container";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";
import { CONTAINER_PROCESSES, containerProcesses } from "../helpers/container-processes";
import { compileC } from "../helpers/c-programs";

// Pair runs (an interactive case's program and interactor, runner-pair.c) in a slot's living container:
// what either leaves is gone before the next run, and which of the two ended first is recorded in the
// order it happened, every time.
const UID = SLOT_UID_BASE + 13;
const LIMITS: Limits = { cpuMs: 2000, wallMs: 4000, memoryKb: 128 * 1024, fileBytes: 1 << 20, processes: 32 };
const root = mkdtempSync(join(tmpdir(), "joj-pair-"));
const stageDir = join(root, "stage");
const bin = join(root, "bin");
let cgroup: RunCgroup;
let container: Container;

/** Compiles a C program on the host, once. */
const build = (name: string, source: string) => compileC(bin, name, source);

/** The program, and the interactor in /work/.interactor (its own to write in), as the judge stages them. */
const stage = (program: string, interactor?: string) => ({
  files: [
    { path: "a.out", mode: 0o755, hostPath: program },
    ...(interactor ? [{ path: ".interactor/interactor", mode: 0o755, hostPath: interactor }] : []),
  ],
  dirs: interactor ? [".interactor"] : [],
});

async function pair(program: string, interactor: string) {
  const peer = { argv: ["./interactor"], dir: "/work/.interactor", cpuMs: 2000, memoryKb: 256 * 1024 };
  const result = await container.run({
    argv: ["./a.out"],
    stdin: null,
    limits: LIMITS,
    peer,
    ...stage(program, interactor),
  });
  expect(result.diagnostics).toBe("");
  return result;
}

const LOOK = `#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>
int main(void) {
  int processes = 0; DIR *proc = opendir("/proc"); struct dirent *e;
  while ((e = readdir(proc))) if (atoi(e->d_name) > 0) processes++;
  printf("files %d %d %d %d sysv %d processes %d\\n", access("/tmp/left", F_OK) == 0, access("/tmp/peer-left", F_OK) == 0,
         access("/work/left", F_OK) == 0, access("/work/.interactor", F_OK) == 0, shmget(0x4a4f4b, 0, 0) >= 0, processes);
  return 0;
}
`;
// Leaves what it can in its namespaces (a file in /tmp and /work, a SysV segment, a daemon), then talks.
const PLANT = `#include <fcntl.h>
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>
int main(void) {
  close(open("/tmp/left", O_CREAT | O_WRONLY, 0644)); close(open("/work/left", O_CREAT | O_WRONLY, 0644));
  shmget(0x4a4f4b, 4096, IPC_CREAT | 0600);
  if (fork() == 0) { setsid(); if (fork() == 0) { sleep(60); _exit(0); } _exit(0); }
  printf("hello\\n"); fflush(stdout);
  char reply[16]; return scanf("%15s", reply) == 1 ? 0 : 1;
}
`;
// The interactor's side of the plant: a file in its /tmp, a daemon of its own, then the conversation.
const PEER_PLANT = `#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
  close(open("/tmp/peer-left", O_CREAT | O_WRONLY, 0644));
  if (fork() == 0) { setsid(); if (fork() == 0) { sleep(60); _exit(0); } _exit(0); }
  char word[16]; if (scanf("%15s", word) != 1) return 2;
  printf("bye\\n"); fflush(stdout); fprintf(stderr, "ok heard %s\\n", word); return 0;
}
`;
// A wrong answer at once: the interactor reads one line and quits; the program writes until its pipe breaks.
const QUITS = `#include <stdio.h>
int main(void) { char word[16]; if (scanf("%15s", word) != 1) return 3; fprintf(stderr, "wrong answer\\n"); return 1; }
`;
const TALKS = `#include <stdio.h>
int main(void) { for (;;) { printf("guess\\n"); fflush(stdout); } }
`;
// A crash at once: the program ends without a word; the interactor reads the early end.
const CRASHES = `int main(void) { return 5; }
`;
const WAITS = `#include <stdio.h>
int main(void) { char word[16]; if (scanf("%15s", word) != 1) { fprintf(stderr, "early end\\n"); return 2; } return 0; }
`;

const programs: Record<string, string> = {};
beforeAll(async () => {
  chmodSync(root, 0o711);
  await mkdir(bin, { recursive: true });
  const runner = await ensureRunner(bin);
  const sources = { LOOK, PLANT, PEER_PLANT, QUITS, TALKS, CRASHES, WAITS };
  for (const [name, source] of Object.entries(sources)) programs[name] = await build(name.toLowerCase(), source);
  cgroup = detectCgroups("joj-judge-test").forSlot(`pair-${UID}`);
  container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 8 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

describe("a pair run in a slot's living container", () => {
  test("both sides plant what they can; the next run finds nothing, and the container is kept", async () => {
    const planted = await pair(programs.PLANT, programs.PEER_PLANT);
    expect(planted.exitCode).toBe(0);
    expect(planted.peer).toMatchObject({ ended: true, exitCode: 0, programEnded: true });
    expect(new TextDecoder().decode(planted.peer!.stderr)).toBe("ok heard hello\n");
    expect(container.usable).toBe(true);
    const after = await container.run({ argv: ["./a.out"], stdin: null, limits: LIMITS, ...stage(programs.LOOK) });
    expect(new TextDecoder().decode(after.stdout)).toBe("files 0 0 0 0 sysv 0 processes 1\n");
    // bubblewrap (outside), the runner (the sandbox's PID 1), the runs' init and the next run's spare:
    // no daemon of either side is left on the host.
    expect(await containerProcesses(UID)).toEqual(CONTAINER_PROCESSES);
    expect(container.usable).toBe(true);
  });

  test("an interactor that quits first is recorded first, every time, though the program dies of it at once", async () => {
    for (let i = 0; i < 60; i++) {
      const run = await pair(programs.TALKS, programs.QUITS);
      expect([run.signal, run.peer?.exitCode, run.peer?.first]).toEqual([13, 1, true]);
    }
  });

  test("a program that ends first is recorded first, every time, though the interactor ends at once on it", async () => {
    for (let i = 0; i < 60; i++) {
      const run = await pair(programs.CRASHES, programs.WAITS);
      expect([run.exitCode, run.peer?.exitCode, run.peer?.first]).toEqual([5, 2, false]);
    }
  });

  test("the interactor's time and memory are its own, not the program's", async () => {
    const run = await pair(programs.PLANT, programs.PEER_PLANT);
    expect(run.peer!.memoryKb).toBeGreaterThan(0);
    expect(run.peer!.cpuMs).toBeGreaterThanOrEqual(0);
    // The program's group holds only the program's pages (a small C program), nothing of the interactor.
    expect(run.memoryKb).toBeLessThan(16 * 1024);
  });
});
