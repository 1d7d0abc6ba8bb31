import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SLOT_UID_BASE, type Limits } from "../../src/judge/sandbox/sandbox";
import { runSandboxed, type ContainerRun } from "../../src/judge/sandbox/container";
import { classifyRun } from "../../src/judge/outcome/verdict";
import { killSlotProcesses, processesOf } from "../../src/judge/sandbox/slot-processes";
import { assertRan, JudgeFault } from "../../src/judge/run/steps";
import { detectCgroups, type RunCgroup } from "../../src/judge/sandbox/cgroups/cgroups";

// Real programs in the real sandbox (bubblewrap, installed by .ci/run): nothing here is simulated.
const UID = SLOT_UID_BASE + 7;
const LIMITS: Limits = { cpuMs: 1000, wallMs: 3000, memoryKb: 64 * 1024, fileBytes: 1 << 20, processes: 32 };
const root = mkdtempSync(join(tmpdir(), "joj-sandbox-"));
let runner: string;
let cgroup: RunCgroup;
beforeAll(async () => {
  // mkdtemp makes it private; the slot uid must be able to pass through to its own work directory.
  await chmod(root, 0o711);
  runner = await ensureRunner(join(root, "bin"));
  cgroup = detectCgroups("joj-judge-test").forSlot(`sandbox-${UID}`);
});
afterAll(() => cgroup.remove());

/** A stage directory of the test's own (the judge's is the slot's). */
const stageOf = (name: string) => join(root, "stage", name);

/** Compiles C source on the host (the sandboxed compile is the judge's business) and runs it sandboxed. */
async function runC(
  name: string,
  source: string,
  options: {
    stdin?: string;
    limits?: Partial<Limits>;
    flags?: string[];
    signal?: AbortSignal;
    take?: ContainerRun["take"];
  } = {},
) {
  const dir = join(root, "build", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "main.c"), source);
  const gcc = Bun.spawn(["gcc", "-O1", "-o", join(dir, "a.out"), join(dir, "main.c"), ...(options.flags ?? [])], {
    stderr: "pipe",
  });
  expect(await gcc.exited).toBe(0);
  const program = { path: "a.out", mode: 0o755, hostPath: join(dir, "a.out") };
  const limits = { ...LIMITS, ...options.limits };
  const input = { path: "input", mode: 0o644, bytes: new TextEncoder().encode(options.stdin ?? "") };
  const run = await runSandboxed(
    {
      runner,
      stageDir: stageOf(name),
      argv: ["./a.out"],
      stdin: options.stdin === undefined ? null : "input",
      files: options.stdin === undefined ? [program] : [program, input],
      take: options.take,
      limits,
      uid: UID,
      cgroup,
      tmpBytes: 64 << 20,
    },
    options.signal,
  );
  const text = new TextDecoder().decode(run.stdout);
  return { run, text, verdict: classifyRun(run, limits) };
}

describe("the sandbox runs programs and measures them", () => {
  test("a correct program: exit 0, its output, kernel-measured time and memory", async () => {
    const { run, text, verdict } = await runC(
      "ok",
      `#include <stdio.h>
int main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}`,
      { stdin: "2 3\n" },
    );
    expect(verdict).toBe("ran");
    expect(text).toBe("5\n");
    expect(run.memoryKb).toBeGreaterThan(0);
    expect(run.memoryKb).toBeLessThan(LIMITS.memoryKb);
  });

  test("an infinite loop: time limit exceeded (CPU)", async () => {
    const { run, verdict } = await runC("loop", "int main(){volatile unsigned long i=0;for(;;)i++;}");
    expect(verdict).toBe("time_limit_exceeded");
    expect(run.cpuMs).toBeGreaterThanOrEqual(LIMITS.cpuMs);
  });

  test("sleeping forever: time limit exceeded (wall clock)", async () => {
    const { run, verdict } = await runC("sleep", "#include <unistd.h>\nint main(){sleep(100);return 0;}", {
      limits: { wallMs: 500 },
    });
    expect(verdict).toBe("time_limit_exceeded");
    expect(run.wallExceeded).toBe(true);
  });

  test("a memory hog: killed by the cgroup's OOM killer, memory limit exceeded", async () => {
    const { run, verdict } = await runC(
      "hog",
      `#include <stdlib.h>
#include <string.h>
int main(){for(int i=0;i<40;i++){char*p=malloc(4<<20);if(!p)return 3;memset(p,1,4<<20);}return 0;}`,
    );
    expect(verdict).toBe("memory_limit_exceeded");
    expect(run.oomKilled).toBe(true);
  });

  test("printing without end: output limit exceeded, the run stopped at the limit", async () => {
    const { run } = await runC(
      "flood",
      '#include <stdio.h>\nint main(){for(;;)fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n",stdout);}',
      { limits: { fileBytes: 100_000 } },
    );
    expect(classifyRun(run, { ...LIMITS, fileBytes: 100_000 })).toBe("output_limit_exceeded");
    expect(run.stdout.byteLength).toBeLessThanOrEqual(100_000);
  });

  test("a segfault and a non-zero exit: runtime errors with their return codes", async () => {
    const segv = await runC("segv", "int main(){volatile int*p=0;*p=1;return 0;}");
    expect(segv.verdict).toBe("runtime_error");
    expect(segv.run.signal).toBe(11);
    const exit = await runC("exit", "int main(){return 7;}");
    expect(exit.verdict).toBe("runtime_error");
    expect(exit.run.exitCode).toBe(7);
  });
});

describe("hostile programs are contained", () => {
  test("a fork bomb hits the process limit and dies with everything it started", async () => {
    const { run } = await runC("forkbomb", "#include <unistd.h>\nint main(){for(;;)fork();}", {
      limits: { wallMs: 1500 },
    });
    expect(run.lost).toBe(false);
    // The PID namespace goes with the run: its processes are gone moments after (bounded wait).
    let leftovers = "x";
    for (let i = 0; i < 100 && leftovers !== ""; i++) {
      leftovers = Bun.spawnSync(["pgrep", "-u", String(UID)])
        .stdout.toString()
        .trim();
      if (leftovers !== "") await Bun.sleep(20);
    }
    expect(leftovers).toBe("");
  });

  test("no network: a socket cannot reach anything", async () => {
    const { text } = await runC(
      "net",
      `#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int main(){int s=socket(AF_INET,SOCK_STREAM,0);struct sockaddr_in a={0};a.sin_family=AF_INET;a.sin_port=htons(5432);a.sin_addr.s_addr=inet_addr("127.0.0.1");
printf("%s\\n",connect(s,(struct sockaddr*)&a,sizeof a)==0?"connected":"refused");return 0;}`,
    );
    expect(text).toBe("refused\n");
  });

  test("no socket but a Unix one: Internet, netlink, packet and vsock sockets are refused with EPERM", async () => {
    const { text } = await runC(
      "families",
      `#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <linux/netlink.h>
static void try(const char *name, int domain, int type, int protocol) {
  int s = socket(domain, type, protocol);
  printf("%s %s\\n", name, s >= 0 ? "open" : errno == EPERM ? "refused" : "failed");
}
int main(){
  try("inet", AF_INET, SOCK_STREAM, 0); try("inet6", AF_INET6, SOCK_DGRAM, 0);
  try("netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); try("packet", AF_PACKET, SOCK_DGRAM, 0);
  try("vsock", 40, SOCK_STREAM, 0); try("unix", AF_UNIX, SOCK_STREAM, 0);
  int pair[2]; printf("pair %s\\n", socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 ? "open" : "failed");
  printf("inet-pair %s\\n", socketpair(AF_INET, SOCK_STREAM, 0, pair) == 0 ? "open" : errno == EPERM ? "refused" : "failed");
  return 0;
}`,
    );
    expect(text).toBe(
      "inet refused\ninet6 refused\nnetlink refused\npacket refused\nvsock refused\nunix open\npair open\ninet-pair refused\n",
    );
  });

  test("secrets and other runs are out of sight; nothing outside the work directory is writable", async () => {
    await writeFile(join(root, "other-run-secret"), "expected output of someone else");
    const { text } = await runC(
      "snoop",
      `#include <stdio.h>
int probe(const char*p,const char*m){FILE*f=fopen(p,m);if(f){fclose(f);return 1;}return 0;}
int main(){printf("%d%d%d%d%d\\n",probe("/etc/shadow","r"),probe("/etc/passwd","r"),probe("${root}/other-run-secret","r"),probe("/usr/evil","w"),probe("/tmp/x","w"));return 0;}`,
    );
    // shadow, passwd, the other run's file, /usr: unreachable; only the private /tmp is writable.
    expect(text).toBe("00001\n");
    expect(existsSync("/usr/evil")).toBe(false);
  });

  test("a file planted as a link, a FIFO or behind a linked folder is never read back", async () => {
    const { run } = await runC(
      "plant",
      `#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
int main(){symlink("/usr/lib/os-release","answer");mkfifo("pipe",0600);symlink("/usr/lib","lib");
mkdir("real",0755);FILE*f=fopen("real/out","w");fputs("mine",f);fclose(f);link("real/out","hard");return 0;}`,
      { take: ["answer", "pipe", "lib/os-release", "real/out", "hard"] },
    );
    // Only the regular files the program wrote itself, each by its own name.
    expect(run.lost).toBe(false);
    expect([...run.files.keys()].sort()).toEqual(["hard", "real/out"]);
    expect(new TextDecoder().decode(run.files.get("real/out")?.bytes)).toBe("mine");
  });
});

describe("a stopped or stuck sandbox ends, and leaves nothing of its slot behind", () => {
  /** A run's result, or a failure naming the run that never ended (without the defences, never). */
  const ends = <T>(run: Promise<T>, what: string, ms = 8_000) =>
    Promise.race([
      run,
      Bun.sleep(ms).then(() => {
        throw new Error(`${what} never ended`);
      }),
    ]);

  test("stopped during bubblewrap's set-up: the run ends and no process of the slot uid is left", async () => {
    // A kill 0-15 ms after the spawn left bubblewrap's first sandbox process waiting for good in about
    // 6 runs of 100, holding the run's pipes: 80 stops make missing that near impossible.
    try {
      for (let i = 0; i < 80; i++) {
        const stop = new AbortController();
        const stageDir = stageOf(`stop-${i}`);
        const sleeper = { runner, stageDir, argv: ["/usr/bin/sleep", "5"], stdin: null, limits: LIMITS, uid: UID };
        const run = runSandboxed({ ...sleeper, cgroup, tmpBytes: 1 << 20 }, stop.signal);
        setTimeout(() => stop.abort(), i % 16);
        const ended = await ends(run, `run ${i}, stopped ${i % 16} ms after its start,`);
        expect(ended.exitCode).not.toBe(0);
        expect(processesOf(UID)).toEqual([]);
      }
    } finally {
      await killSlotProcesses(UID);
    }
  }, 60_000);

  test("a fork bomb stopped in full swing: nothing of the slot uid is left when the run returns", async () => {
    // A program that fights its stop: every process forks again as fast as it can while the run is
    // killed. The end of the PID namespace, then the slot kill, must leave nothing of the uid behind.
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const bomb = "#include <unistd.h>\nint main(){for(;;)fork();}";
    const stopped = runC("stopped-bomb", bomb, { limits: { wallMs: 5000 }, signal: stop.signal });
    const { run } = await ends(stopped, "the stopped bomb");
    expect(run.exitCode).not.toBe(0);
    expect(processesOf(UID)).toEqual([]);
  });

  test("a sandbox that never starts the program is killed from outside after its wall clock and a grace", async () => {
    // A runner that never runs anything and never reports: the runner's own wall clock cannot help.
    const stuck = join(root, "bin", "stuck-runner");
    await writeFile(stuck, "#!/bin/sh\nexec sleep 1000\n", { mode: 0o755 });
    const limits = { ...LIMITS, wallMs: 100 };
    try {
      const stageDir = stageOf("stuck");
      const sandbox = { runner: stuck, stageDir, argv: ["./a.out"], stdin: null, limits, uid: UID, cgroup };
      const run = await ends(runSandboxed({ ...sandbox, tmpBytes: 1 << 20, overdueMs: 500 }), "the stuck sandbox");
      expect(run).toMatchObject({ lost: true, exitCode: -1 });
      expect(run.diagnostics).toStartWith("sandbox: not ended 500 ms past its wall clock; killed from outside");
      // The judge's fault, not the program's: the record fails as a system error.
      expect(() => assertRan(run)).toThrow(JudgeFault);
      expect(processesOf(UID)).toEqual([]);
    } finally {
      await killSlotProcesses(UID);
    }
  });
});
