import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container, type ContainerRun } from "../../src/judge/sandbox/container";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";
import { compileC } from "../helpers/c-programs";

// /work, /tmp and /dev/shm are stacks of tmpfs layers (runner-layers.c): a run's layer is covered by the
// next run's when it holds nothing, and unmounted at once when it holds anything. Each test here fails
// without the defence it names.
const UID = SLOT_UID_BASE + 17;
const LIMITS: Limits = { cpuMs: 2000, wallMs: 4000, memoryKb: 128 * 1024, fileBytes: 32 << 20, processes: 32 };
/** The runner's LAYERS_MAX: the runs after which every stack goes whole. */
const LAYERS_MAX = 32;
const root = mkdtempSync(join(tmpdir(), "joj-layers-"));
const stageDir = join(root, "stage");
const bin = join(root, "bin");
let runner: string;
let cgroup: RunCgroup;
let container: Container;

/** Compiles a C program on the host, once. */
const build = (name: string, source: string) => compileC(bin, name, source);

async function run(binary: string, more: Partial<ContainerRun> = {}) {
  const result = await container.run({
    argv: ["./a.out"],
    stdin: null,
    limits: LIMITS,
    ...more,
    files: [{ path: "a.out", mode: 0o755, hostPath: binary }, ...(more.files ?? [])],
  });
  expect(result.diagnostics).toBe("");
  expect(result.exitCode).toBe(0);
  return { result, text: new TextDecoder().decode(result.stdout) };
}

/** How many layers of /work, /tmp and /dev/shm a program sees in its mountinfo. */
const DEPTH = `#include <stdio.h>
#include <string.h>
int main(void) {
  FILE *f = fopen("/proc/self/mountinfo", "r");
  char line[4096], at[1024];
  int work = 0, tmp = 0, shm = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%*s %*s %*s %*s %1023s", at) == 1)
      work += !strcmp(at, "/work"), tmp += !strcmp(at, "/tmp"), shm += !strcmp(at, "/dev/shm");
  printf("%d %d %d\\n", work, tmp, shm);
  return 0;
}
`;
/** Leaves 16 MiB in /tmp, 4 MiB in /dev/shm and 4 MiB in /work. */
const FILES = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int fill(const char *path, int mib) {
  FILE *f = fopen(path, "w");
  char *block = malloc(1 << 20);
  memset(block, 7, 1 << 20);
  int ok = f != NULL;
  for (int i = 0; ok && i < mib; i++) ok = fwrite(block, 1, 1 << 20, f) == 1 << 20;
  return f && fclose(f) == 0 && ok;
}
int main(void) { printf("%d\\n", fill("/tmp/big", 16) + fill("/dev/shm/big", 4) + fill("/work/big", 4)); return 0; }
`;
/** Leaves no file, only extended attributes on the roots (the program's own): 6 MiB of them on /tmp. */
const ATTRIBUTES = `#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
int main(void) {
  static char value[60000];
  memset(value, 1, sizeof value);
  char name[32];
  int set = 0;
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof name, "user.k%d", i);
    set += setxattr("/tmp", name, value, sizeof value, 0) == 0;
  }
  printf("%d %d\\n", set, setxattr("/work", "user.k", value, 10, 0) == 0);
  return 0;
}
`;

let depth: string;
let files: string;
let attributes: string;
beforeAll(async () => {
  chmodSync(root, 0o711);
  mkdirSync(bin, { recursive: true });
  runner = await ensureRunner(bin);
  [depth, files, attributes] = await Promise.all([
    build("depth", DEPTH),
    build("files", FILES),
    build("attributes", ATTRIBUTES),
  ]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`layers-${UID}`);
  container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 32 << 20 });
});
afterAll(async () => {
  await container?.close();
  await cgroup?.remove();
});

const layers = async () => (await run(depth)).text.trim().split(" ").map(Number);

describe("the layers of /work, /tmp and /dev/shm", () => {
  test("a run that leaves nothing is covered: each run sees a layer more, and after LAYERS_MAX runs one", async () => {
    const seen: number[] = [];
    for (let i = 0; i < LAYERS_MAX + 8; i++) {
      const [work, tmp, shm] = await layers();
      expect(tmp).toBe(work);
      expect(shm).toBe(work);
      seen.push(work);
    }
    expect(Math.max(...seen)).toBe(LAYERS_MAX);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1] === LAYERS_MAX ? 1 : seen[i - 1] + 1);
    expect(container.usable).toBe(true);
  });

  test("a run that leaves files: its layers go at once, so the next run's group holds none of its pages", async () => {
    for (let i = 0; i < 3; i++) {
      const [before] = await layers();
      const planted = await run(files);
      expect(planted.text).toBe("3\n");
      expect(planted.result.memoryKb).toBeGreaterThan(24 * 1024);
      // The next run's reset found the group all but empty: had a layer with 24 MiB been covered, the
      // kernel could not have reclaimed it, and the container would have gone (CgroupDirty).
      const [after] = await layers();
      expect(after).toBe(before === LAYERS_MAX - 1 ? 1 : before === LAYERS_MAX ? 2 : before + 2);
      expect(container.usable).toBe(true);
    }
  });

  test("a run that leaves only extended attributes on the roots: its layers go at once too", async () => {
    const planted = await run(attributes);
    expect(planted.text).toBe("100 1\n");
    const after = await run(depth);
    expect(after.result.memoryKb).toBeLessThan(8 * 1024);
    expect(container.usable).toBe(true);
  });

  test("the depth a run sees is the same whatever the runs before it did (no program can move it)", async () => {
    const sequence = async (middle: string) => {
      await container.close();
      container = Container.start({ runner, stageDir, uid: UID, cgroup, tmpBytes: 32 << 20 });
      const first = await layers();
      await run(middle);
      return [first, await layers()];
    };
    const quiet = await sequence(depth);
    expect(await sequence(files)).toEqual(quiet);
    expect(await sequence(attributes)).toEqual(quiet);
    expect(quiet).toEqual([
      [1, 1, 1],
      [3, 3, 3],
    ]);
  });

  test("a covered /work keeps no large staged file alive: the stage gets its room back", async () => {
    const big = new Uint8Array(20 << 20).fill(9);
    await run(depth, { files: [{ path: "input", mode: 0o644, bytes: big }] });
    // The next run's staging drops the judge's name of the input; a covered layer binding it would keep
    // its 20 MiB in the stage until the stack goes.
    await run(depth);
    const stage = statfsSync(stageDir);
    const usedMiB = ((stage.blocks - stage.bfree) * stage.bsize) / (1 << 20);
    expect(usedMiB).toBeLessThan(4);
  });
});
