import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { mkdtempSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureProbe, ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { runSandboxed } from "../../src/judge/sandbox/container";
import { processesOf } from "../../src/judge/sandbox/slot-processes";
import { judgeProbeReport } from "../../src/judge/sandbox/self-check";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";

// What a sandboxed program can see of the judge: its environment, its processes, their descriptors and
// memory. The judge's own environment (this process's) holds a secret while these run.
const UID = SLOT_UID_BASE + 9;
const LIMITS: Limits = { cpuMs: 1000, wallMs: 3000, memoryKb: 64 * 1024, fileBytes: 1 << 20, processes: 32 };
const SECRET = `judge-secret-${randomBytes(16).toString("hex")}`;
const root = mkdtempSync(join(tmpdir(), "joj-sandbox-secrets-"));
let runner: string;
let probe: string;
let cgroup: RunCgroup;

beforeAll(async () => {
  await chmod(root, 0o711);
  [runner, probe] = await Promise.all([ensureRunner(join(root, "bin")), ensureProbe(join(root, "bin"))]);
  cgroup = detectCgroups("joj-judge-test").forSlot(`secrets-${UID}`);
  process.env.JUDGER_SECRET_ACCESS_KEY_UNDER_TEST = SECRET;
});
afterAll(() => {
  delete process.env.JUDGER_SECRET_ACCESS_KEY_UNDER_TEST;
  cgroup.remove();
});

/** Runs a binary (compiled on the host from C, or copied) in the sandbox as the slot uid. */
async function run(name: string, binary: { c?: string; copy?: string }, limits: Partial<Limits> = {}) {
  const dir = join(root, "build", name);
  await mkdir(dir, { recursive: true });
  let program = binary.copy!;
  if (binary.c !== undefined) {
    await writeFile(join(dir, "main.c"), binary.c);
    expect(await Bun.spawn(["gcc", "-O1", "-o", join(dir, "a.out"), join(dir, "main.c")]).exited).toBe(0);
    program = join(dir, "a.out");
  }
  const result = runSandboxed({
    runner,
    stageDir: join(root, "stage", name),
    files: [{ path: "a.out", mode: 0o755, hostPath: program }],
    argv: ["./a.out"],
    stdin: null,
    limits: { ...LIMITS, ...limits },
    uid: UID,
    cgroup,
    tmpBytes: 64 << 20,
  });
  return { result };
}

describe("a sandboxed program sees its own processes only", () => {
  test("the probe sees itself alone, not even an init, and no setting of the judge", async () => {
    const { result } = await run("probe", { copy: probe });
    const done = await result;
    expect(done.exitCode).toBe(0);
    const report = new TextDecoder().decode(done.stdout);
    expect(judgeProbeReport(report, [SECRET])).toEqual([]);
    // The runs' init (PID 1, the runner's fork) is not dumpable: its /proc (hidepid) shows it to no program,
    // nor its accounting of earlier runs (/proc/1/status, stat, sched).
    const pids = new Set(
      report
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(" ")[0]),
    );
    expect(pids.size).toBe(1);
    expect(report.split("\n").filter((line) => line.includes(" other "))).toEqual([]);
  });

  test("its mounts and cgroups name no directory of the judge's: /proc/self/mountinfo and /proc/self/cgroup", async () => {
    const { result } = await run("mounts", {
      c: `#include <stdio.h>
int main(){const char*files[]={"/proc/self/mountinfo","/proc/self/cgroup"};for(int i=0;i<2;i++){FILE*f=fopen(files[i],"r");
char line[1024];while(f&&fgets(line,sizeof line,f))fputs(line,stdout);if(f)fclose(f);}return 0;}`,
    });
    const text = new TextDecoder().decode((await result).stdout);
    expect(text).toContain(" /work ");
    // Neither the runner's path nor the stage's, nor the judge's cgroup path: the runner is copied in.
    for (const path of [root, runner, "joj-judge"]) expect(text).not.toContain(path);
    const cgroups = text.split("\n").filter((line) => /^\d+:/.test(line));
    expect(cgroups.length).toBeGreaterThan(0);
    for (const line of cgroups.filter((l) => /memory|pids|cpuacct|^0::/.test(l))) expect(line).toMatch(/:\/$/);
  });

  test("bubblewrap itself runs with none of the judge's environment (read from the host during a run)", async () => {
    const { result } = await run("sleeper", { c: "#include <unistd.h>\nint main(){sleep(2);return 0;}" });
    let seen: string[][] = [];
    for (let i = 0; i < 100 && seen.length < 2; i++) {
      await Bun.sleep(20);
      seen = processesOf(UID)
        .map((pid) => {
          try {
            return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").filter(Boolean);
          } catch {
            return [];
          }
        })
        .filter((environ) => environ.length > 0);
    }
    await result;
    // bubblewrap outside and the program inside: both seen, neither with a variable beyond the sandbox's.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const environ of seen) {
      expect(environ.join("\n")).not.toContain(SECRET);
      expect(
        environ.map((entry) => entry.split("=")[0]).filter((name) => !["PATH", "HOME", "LANG", "PWD"].includes(name)),
      ).toEqual([]);
    }
  });

  test("the runs' init cannot be killed by the program, and the runner still reports", async () => {
    const { result } = await run("killer", {
      c: `#include <signal.h>
#include <stdio.h>
int main(){int a=kill(1,SIGKILL),b=kill(1,SIGTERM),c=kill(-1,SIGKILL);printf("%d %d %d\\n",a,b,c);fflush(stdout);return 0;}`,
    });
    const done = await result;
    expect(done.lost).toBe(false);
    expect(done.exitCode).toBe(0);
  });

  test("orphans are reaped while the run goes on: 200 double forks leave no zombie behind", async () => {
    const { result } = await run(
      "orphans",
      {
        c: `#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(){int made=0;for(int i=0;i<200;i++){int tries=0;pid_t p;
while((p=fork())<0&&errno==EAGAIN&&tries++<2000)usleep(500);
if(p<0)break;if(p==0){if(fork()==0)_exit(0);_exit(0);}waitpid(p,0,0);made++;}
usleep(200000);int seen=0;DIR*d=opendir("/proc");struct dirent*e;while((e=readdir(d)))if(atoi(e->d_name)>0)seen++;
printf("%d made, %d processes\\n",made,seen);return 0;}`,
      },
      { wallMs: 10_000, cpuMs: 5_000 },
    );
    const done = await result;
    // The program alone (its init, PID 1, is hidden): every orphan was reaped by the init.
    expect(new TextDecoder().decode(done.stdout)).toBe("200 made, 1 processes\n");
  });
});
