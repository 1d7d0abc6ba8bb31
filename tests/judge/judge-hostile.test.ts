import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";

// Programs that fight back, submitted through the API and judged by the real judge in the real sandbox:
// each one would be accepted (or stall the judge) if the defence it probes were missing.
const UID_BASE = 62_000;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
const problems: Record<"strict" | "whitespace" | "crlf" | "binary", string> = {
  strict: "",
  whitespace: "",
  crlf: "",
  binary: "",
};

const limits = { time: "300ms", memory: "64m", score: 100 };
const configOf = (caseFields: object = {}) => ({
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-pthread", "-o", "main", "main.c"],
      caseDefault: {
        ...limits,
        ignoreWhitespace: false,
        executeFiles: ["main"],
        executeArgs: ["./main"],
        ...caseFields,
      },
      cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out" }],
    },
  ],
});

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  const server = listen(t);
  judge = await startJudge(
    judgeEnv(t, server, await judgerKey(t, cast), UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_OUTPUT_LIMIT_MB: "16" }),
  );
  problems.strict = await problemWithData(t, cast, configOf(), { "1.in": "1 2\n", "1.out": "3\n" });
  problems.whitespace = await problemWithData(t, cast, configOf({ ignoreWhitespace: true }), {
    "1.in": "1 2\n",
    "1.out": "3\n",
  });
  // Test data written on Windows: CRLF line ends, under strict comparison.
  problems.crlf = await problemWithData(t, cast, configOf(), { "1.in": "1 2\r\n", "1.out": "3\r\n4\r\n" });
  // Expected output that is not UTF-8: a byte 0xFE. Decoding would make 0xFF look the same.
  problems.binary = await problemWithData(t, cast, configOf(), {
    "1.in": "1 2\n",
    "1.out": Buffer.from([0xfe, 0x0a]) as unknown as string,
  });
}, 90_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
});

const HEADERS = `#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <linux/bpf.h>
`;
const SOLVE = `long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 9; printf("%ld\\n", a + b); fflush(stdout);`;
const BURN = (
  ms: number,
) => `{ struct timespec s, n; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &s); do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &n);
  while ((n.tv_sec - s.tv_sec) * 1000 + (n.tv_nsec - s.tv_nsec) / 1000000 < ${ms}); }`;
const TOUCH = (mib: number) =>
  `{ size_t n = (size_t)${mib} << 20; char *p = malloc(n); if (p) for (size_t i = 0; i < n; i += 4096) p[i] = 1; }`;
/** Solves the problem only if the probe obtained what it must never get: an escape is then accepted. */
const solveIf = (probe: string) =>
  `int main(void){ int got = 0; ${probe} if (got) { ${SOLVE} return 0; } puts("denied"); return 0; }`;

async function judged(problem: string, source: string) {
  const record = (
    await submit(
      t,
      cast.member.token,
      `/domains/${cast.domain.id}/problems/${problem}`,
      submission("c", { "main.c": HEADERS + source }),
    )
  ).body.data;
  expect(record?.id).toBeString();
  await finalRecord(t, record.id, 90_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body
    .data as {
    state: string;
    cases: { state: string; timeMs: number; memoryKb: number; stdout: string }[];
  };
}

const HOSTILE: Record<string, [keyof typeof problems, string, string]> = {
  // Forging the report: take the runner's report descriptor, write a clean report, kill the runner.
  forgeWithPidfdGetfd: [
    "strict",
    `int main(void){ ${SOLVE} int pfd = syscall(SYS_pidfd_open, getppid(), 0);
    int fd = pfd >= 0 ? syscall(SYS_pidfd_getfd, pfd, 3, 0) : -1;
    if (fd >= 0) dprintf(fd, "{\\"exitCode\\":0,\\"signal\\":0,\\"wallMs\\":1,\\"wallExceeded\\":false,\\"setupFailed\\":\\"\\"}\\n");
    kill(getppid(), SIGKILL); return 1; }`,
    "runtime_error",
  ],
  ptraceTheRunner: ["strict", solveIf("if (ptrace(PTRACE_ATTACH, getppid(), 0, 0) == 0) got = 1;"), "wrong_answer"],
  readRunnerMemory: [
    "strict",
    solveIf(`char buf[8]; struct iovec l = { buf, 8 }, r = { (void *)0x400000, 8 };
    if (syscall(SYS_process_vm_readv, getppid(), &l, 1, &r, 1, 0) >= 0) got = 1;`),
    "wrong_answer",
  ],
  openRunnerFd: [
    "strict",
    solveIf(`char p[64]; snprintf(p, sizeof p, "/proc/%d/fd/3", getppid()); if (open(p, O_WRONLY) >= 0) got = 1;`),
    "wrong_answer",
  ],
  kernelSurface: [
    "strict",
    solveIf(`if (unshare(CLONE_NEWUSER) == 0) got = 1; if (mount("none", "/tmp", "tmpfs", 0, 0) == 0) got = 1;
    union bpf_attr at; memset(&at, 0, sizeof at); if (syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof at) >= 0) got = 1;
    if (syscall(SYS_io_uring_setup, 4, calloc(1, 256)) >= 0) got = 1; if (syscall(SYS_perf_event_open, calloc(1, 256), 0, -1, -1, 0) >= 0) got = 1;`),
    "wrong_answer",
  ],
  // Memory: 8 × 50 MiB under a 64 MiB limit, through processes, threads, mmap, /tmp and the work directory.
  memoryInChildren: [
    "strict",
    `int main(void){ for (int i = 0; i < 8; i++) if (fork() == 0) { ${TOUCH(50)} sleep(1); _exit(0); }
    while (wait(0) > 0) {} ${SOLVE} return 0; }`,
    "memory_limit_exceeded",
  ],
  memoryInThreads: [
    "strict",
    `static void *hog(void *x) { ${TOUCH(50)} sleep(1); return x; }
    int main(void){ pthread_t th[8]; for (int i = 0; i < 8; i++) pthread_create(&th[i], 0, hog, 0); for (int i = 0; i < 8; i++) pthread_join(th[i], 0);
    ${SOLVE} return 0; }`,
    "memory_limit_exceeded",
  ],
  memoryByMmap: [
    "strict",
    `int main(void){ char *p = mmap(0, 600u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) for (size_t i = 0; i < (600u << 20); i += 4096) p[i] = 1; ${SOLVE} return 0; }`,
    "memory_limit_exceeded",
  ],
  // One huge file stops at the file-size limit; many files fill tmpfs pages that count as the run's memory.
  oneHugeTmpFile: [
    "strict",
    `int main(void){ static char mb[1 << 20]; memset(mb, 'x', sizeof mb); FILE *f = fopen("/tmp/fill", "w");
    for (int i = 0; f && i < 600; i++) if (fwrite(mb, 1, sizeof mb, f) != sizeof mb) break; ${SOLVE} return 0; }`,
    "output_limit_exceeded",
  ],
  fillTmp: [
    "strict",
    `int main(void){ static char mb[1 << 20]; memset(mb, 'x', sizeof mb); char name[32];
    for (int i = 0; i < 600; i++) { snprintf(name, sizeof name, "/tmp/fill-%d", i); FILE *f = fopen(name, "w"); if (!f || fwrite(mb, 1, sizeof mb, f) != sizeof mb) break; fclose(f); }
    ${SOLVE} return 0; }`,
    "memory_limit_exceeded",
  ],
  fillWorkDir: [
    "strict",
    `int main(void){ static char mb[1 << 20]; memset(mb, 'x', sizeof mb); char name[32];
    for (int i = 0; i < 600; i++) { snprintf(name, sizeof name, "fill-%d", i); FILE *f = fopen(name, "w"); if (!f || fwrite(mb, 1, sizeof mb, f) != sizeof mb) break; fclose(f); }
    ${SOLVE} return 0; }`,
    "memory_limit_exceeded",
  ],
  // CPU spread over processes: each child stays under 300 ms, together they do not.
  cpuInChildren: [
    "strict",
    `int main(void){ for (int i = 0; i < 4; i++) if (fork() == 0) { ${BURN(200)} _exit(0); } while (wait(0) > 0) {} ${SOLVE} return 0; }`,
    "time_limit_exceeded",
  ],
  endlessLine: ["strict", `int main(void){ ${SOLVE} for (;;) putchar('x'); }`, "output_limit_exceeded"],
  // Bytes are compared as bytes: 0xFF is not 0xFE, though both decode to U+FFFD.
  invalidUtf8: ["binary", `int main(void){ putchar(0xff); putchar('\\n'); return 0; }`, "wrong_answer"],
};

describe("hostile programs get the verdict a contest judge would give", () => {
  test.each(Object.entries(HOSTILE))(
    "%s",
    async (_name, [problem, source, verdict]) => {
      const record = await judged(problems[problem], source);
      expect(record.cases[0].state).toBe(verdict);
      expect(record.state).toBe("rejected");
    },
    120_000,
  );

  test("memory is the whole group's peak, measured by the kernel outside the sandbox", async () => {
    const record = await judged(
      problems.strict,
      `int main(void){ for (int i = 0; i < 3; i++) if (fork() == 0) { ${TOUCH(12)} sleep(1); _exit(0); }
      while (wait(0) > 0) {} ${SOLVE} return 0; }`,
    );
    expect(record.cases[0].state).toBe("accepted");
    // Three children of 12 MiB each, alive together: more than any one process's RSS.
    expect(record.cases[0].memoryKb).toBeGreaterThan(36 * 1024);
    const shmemKb = Number(/Shmem:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]);
    expect(shmemKb).toBeLessThan(1024 * 1024); // /tmp floods never stay behind in the host's shared memory
  }, 120_000);
});

describe("comparison: bytes, linear, never in the way", () => {
  test("the exact answer as bytes: 0xFE matches 0xFE", async () => {
    expect((await judged(problems.binary, `int main(void){ putchar(0xfe); putchar('\\n'); return 0; }`)).state).toBe(
      "accepted",
    );
  }, 60_000);

  test("CRLF test data: a correct program printing LF is accepted under strict comparison", async () => {
    expect((await judged(problems.crlf, `int main(void){ ${SOLVE} puts("4"); return 0; }`)).state).toBe("accepted");
  }, 60_000);

  test("3 MB of blank lines after the answer: judged at once (accepted ignoring white space, wrong strictly), and another record is judged meanwhile", async () => {
    const flood = `int main(void){ ${SOLVE} for (int i = 0; i < 3000000; i++) putchar('\\n'); return 0; }`;
    const [tolerant, strict, other] = await Promise.all([
      judged(problems.whitespace, flood),
      judged(problems.strict, flood),
      judged(problems.strict, `int main(void){ ${SOLVE} return 0; }`),
    ]);
    expect(tolerant.state).toBe("accepted");
    expect(strict.cases[0].state).toBe("wrong_answer");
    expect(other.state).toBe("accepted");
  }, 60_000);
});
