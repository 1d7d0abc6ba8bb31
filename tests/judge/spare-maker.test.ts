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
// made a SysV object and the runner moved to a new IPC namespace, the runner makes the spares itself; the
// maker stays, idle, since the slot uid's threads count in every program's RLIMIT_NPROC.
const UID = SLOT_UID_BASE + 29;
const LIMITS: Limits = { cpuMs: 2000, wallMs: 4000, memoryKb: 64 * 1024, fileBytes: 1 << 20, processes: 8 };
const root = mkdtempSync(join(tmpdir(), "joj-spare-maker-"));
let cgroup: RunCgroup;
let container: Container;

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

let binary: string;
let forks: string;
async function run(...args: string[]) {
  return runOf(binary, args);
}
async function runOf(program: string, args: string[]) {
  const result = await container.run({
    argv: ["./a.out", ...args],
    stdin: null,
    limits: LIMITS,
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
  const runner = await ensureRunner(bin);
  [binary, forks] = await Promise.all([compileC(bin, "ipc", PROGRAM), compileC(bin, "forks", FORKS)]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`maker-${UID}`);
  container = Container.start({ runner, stageDir: join(root, "stage"), uid: UID, cgroup, tmpBytes: 8 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

describe("the spares' maker", () => {
  test("a program cloned by it runs under the filter, loaded once: one filter, as a spare of the runner's", async () => {
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
    // The retired maker is still there: a program may make exactly as many processes as before.
    expect((await runOf(forks, [])).text).toBe(forksBefore);
    expect(container.usable).toBe(true);
  });
});
