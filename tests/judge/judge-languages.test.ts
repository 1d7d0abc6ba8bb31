import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import {
  finalRecord,
  judgeEnv,
  judgerKey,
  listen,
  problemWithData,
  startJudge,
  uploadConfig,
} from "../helpers/judging";

// Real programs, compiled and run by the real judge in the real sandbox, submitted through the API
// and judged from the real queue: C, C++ and Python 3, each well-behaved, wrong and hostile.
const UID_BASE = 61_000;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
let problem: string;
let server: string;
const escapeMark = `escaped-${randomUUID().slice(0, 8)}`;

const cases = [
  { executeInputFile: "data/1.in", executeOutputFile: "data/1.out" },
  { executeInputFile: "data/2.in", executeOutputFile: "data/2.out" },
];
const limits = { time: "1s", memory: "64m", score: 50, category: "pretest" };
const CONFIG = {
  languageDefault: { cases },
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-o", "main", "main.c"],
      caseDefault: { ...limits, executeFiles: ["main"], executeArgs: ["./main"] },
    },
    {
      name: "cpp",
      compileFiles: ["main.cpp"],
      compileArgs: ["g++", "-O2", "-o", "main", "main.cpp"],
      caseDefault: { ...limits, executeFiles: ["main"], executeArgs: ["./main"] },
    },
    {
      name: "python3",
      compileFiles: ["main.py"],
      compileArgs: ["python3", "-m", "py_compile", "main.py"],
      caseDefault: { ...limits, executeFiles: ["main.py"], executeArgs: ["python3", "main.py"] },
    },
  ],
};
const DATA = { "data/1.in": "1 2\n", "data/1.out": "3\n", "data/2.in": "40 2\n", "data/2.out": "42\n" };
const digest = (text: string) => createHash("sha256").update(text).digest("hex");
/** Where the judge caches a config file on the host: a program that reached it could copy the answers. */
const cachedPath = (text: string) => join(judge.settings.cacheDir, digest(text).slice(0, 2), digest(text));

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  server = listen(t);
  judge = await startJudge(judgeEnv(t, server, await judgerKey(t, cast), UID_BASE));
  problem = await problemWithData(t, cast, CONFIG, DATA);
}, 60_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
});

/** `cases`: each case's state; a list of alternatives (`oneOf`) where the kernel may stop a program either way. */
type Expectation = { cases: string | string[]; oneOf?: string[]; check?: (record: JudgedRecord) => void };
// A fork bomb runs out of wall time, or its 64 processes' memory passes the limit first: both refuse it.
const FORK_BOMB: Expectation = {
  cases: "time_limit_exceeded",
  oneOf: ["time_limit_exceeded", "memory_limit_exceeded"],
};
type JudgedRecord = {
  state: string;
  score: number;
  timeMs: number;
  memoryKb: number;
  cases: {
    state: string;
    score: number;
    timeMs: number;
    memoryKb: number;
    returnCode: number;
    stdout: string;
    stderr: string;
  }[];
};

const SOLVE_C = `long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 9; printf("%ld\\n", a + b); return 0;`;
/** A C program (also valid C++) that tries `attack` and solves the problem only if the attack failed. */
const hostileC = (attack: string, headers = "") => `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
${headers}
int main(void) { ${attack} ${SOLVE_C} }`;

function cPrograms(): Record<string, [string, Expectation]> {
  return {
    correct: [`#include <stdio.h>\nint main(void){ ${SOLVE_C} }`, { cases: "accepted" }],
    wrong: [
      `#include <stdio.h>\nint main(void){ long a,b; scanf("%ld %ld",&a,&b); printf("%ld\\n", a-b); return 0; }`,
      { cases: "wrong_answer" },
    ],
    loop: [
      "int main(void){ volatile unsigned long i = 0; for (;;) i++; }",
      { cases: "time_limit_exceeded", check: (r) => expect(r.cases[0].timeMs).toBeGreaterThanOrEqual(1000) },
    ],
    hog: [
      "#include <stdlib.h>\n#include <string.h>\nint main(void){ for (;;) { char *p = (char *)malloc(1 << 20); if (!p) return 1; memset(p, 1, 1 << 20); } }",
      { cases: "memory_limit_exceeded", check: (r) => expect(r.cases[0].memoryKb).toBeGreaterThanOrEqual(64 * 1024) },
    ],
    flood: [
      '#include <stdio.h>\nint main(void){ for (;;) fputs("all work and no play makes jack a dull boy\\n", stdout); }',
      { cases: "output_limit_exceeded" },
    ],
    crash: [
      "int main(void){ volatile int *p = 0; *p = 1; return 0; }",
      { cases: "runtime_error", check: (r) => expect(r.cases[0].returnCode).toBe(128 + 11) },
    ],
    compileError: [
      '#include "/etc/shadow"\nint main(void){ return }',
      { cases: "compile_error", check: (r) => expect(r.cases[0].stderr).toContain("error") },
    ],
    forkBomb: [hostileC("for (;;) fork();"), FORK_BOMB],
    network: [
      hostileC(`int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in to; memset(&to, 0, sizeof to); to.sin_family = AF_INET;
      to.sin_port = htons(${new URL(server).port}); to.sin_addr.s_addr = inet_addr("127.0.0.1");
      if (s >= 0 && connect(s, (struct sockaddr *)&to, sizeof to) == 0) { puts("ESCAPED"); return 0; }`),
      { cases: "accepted" },
    ],
    shadow: [
      hostileC(`if (fopen("/etc/shadow", "r") || fopen("/etc/passwd", "r")) { puts("ESCAPED"); return 0; }`),
      { cases: "accepted" },
    ],
    peek: [
      hostileC(`const char *paths[] = { "${cachedPath("3\n")}", "${cachedPath("42\n")}", "${judge.settings.workDir}/${UID_BASE + 1}/stage/0", "/.stage/0", "/.stage/1", "data/1.out", "../data/1.out", "/proc/1/root/etc/hostname" };
      for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) if (open(paths[i], O_RDONLY) >= 0) { printf("ESCAPED %s\\n", paths[i]); return 0; }`),
      { cases: "accepted" },
    ],
    writeOut: [
      hostileC(`const char *paths[] = { "${judge.settings.workDir}/${escapeMark}", "/usr/${escapeMark}", "/${escapeMark}", "../${escapeMark}" };
      for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) { FILE *f = fopen(paths[i], "w"); if (f) { fputs("x", f); fclose(f); } }`),
      { cases: "accepted" },
    ],
    // Output goes to the judge through a pipe; a link planted where an output file could be must change nothing.
    plantLink: [
      hostileC(`long x, y; scanf("%ld %ld", &x, &y); unlink(".judge-stdout");
      symlink(x == 1 ? "${cachedPath("3\n")}" : "${cachedPath("42\n")}", ".judge-stdout"); return 0;`),
      { cases: "wrong_answer" },
    ],
  };
}

function pythonPrograms(): Record<string, [string, Expectation]> {
  const solve = "a, b = map(int, input().split())\nprint(a + b)\n";
  return {
    correct: [solve, { cases: "accepted" }],
    wrong: ["a, b = map(int, input().split())\nprint(a * b)\n", { cases: "wrong_answer" }],
    loop: ["while True:\n    pass\n", { cases: "time_limit_exceeded" }],
    hog: ["x = []\nwhile True:\n    x.append(b'x' * (1 << 20))\n", { cases: "memory_limit_exceeded" }],
    flood: [
      "while True:\n    print('all work and no play makes jack a dull boy')\n",
      { cases: "output_limit_exceeded" },
    ],
    crash: [
      "raise RuntimeError('boom')\n",
      {
        cases: "runtime_error",
        check: (r) => {
          expect(r.cases[0].returnCode).toBe(1);
          expect(r.cases[0].stderr).toContain("RuntimeError: boom");
        },
      },
    ],
    compileError: [
      "def f(:\n    pass\n",
      { cases: "compile_error", check: (r) => expect(r.cases[0].stderr).toContain("SyntaxError") },
    ],
    forkBomb: ["import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", FORK_BOMB],
    network: [
      `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${new URL(server).port}), timeout=1)\n    print("ESCAPED")\nexcept OSError:\n    ${solve.replace("\n", "\n    ")}`,
      { cases: "accepted" },
    ],
    shadow: [
      `try:\n    open("/etc/shadow").read()\n    print("ESCAPED")\nexcept OSError:\n    ${solve.replace("\n", "\n    ")}`,
      { cases: "accepted" },
    ],
    plantLink: [
      `import os\na, b = map(int, input().split())\nos.symlink("${cachedPath("3\n")}" if a == 1 else "${cachedPath("42\n")}", ".judge-stdout")\n`,
      { cases: "wrong_answer" },
    ],
  };
}

const fileName = { c: "main.c", cpp: "main.cpp", python3: "main.py" } as const;

async function judged(language: keyof typeof fileName, source: string): Promise<JudgedRecord> {
  // The student's own file name: a lone file stands for the language's lone compile file.
  const form = submission(language, { [language === "python3" ? "solution.py" : fileName[language]]: source });
  const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`, form)).body.data;
  await finalRecord(t, record.id, 90_000);
  const view = await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token });
  return view.body.data;
}

function verify(name: string, record: JudgedRecord, expectation: Expectation) {
  const wanted = Array.isArray(expectation.cases) ? expectation.cases : [expectation.cases, expectation.cases];
  const got = record.cases.map((c, i) => (expectation.oneOf?.includes(c.state) ? wanted[i] : c.state));
  expect({ name, cases: got }).toEqual({ name, cases: wanted });
  expect({ name, state: record.state }).toEqual({
    name,
    state: wanted.every((s) => s === "accepted") ? "accepted" : "rejected",
  });
  expect(record.score).toBe(wanted.filter((s) => s === "accepted").length * 50);
  expectation.check?.(record);
}

describe.each(["c", "cpp", "python3"] as const)("%s programs, judged for real", (language) => {
  test("correct, wrong, looping, hogging, flooding, crashing, not compiling and hostile programs each get their verdict", async () => {
    const programs = language === "python3" ? pythonPrograms() : cPrograms();
    const entries = Object.entries(programs).map(([name, [source, expectation]]) => {
      const code =
        language === "cpp" && name === "correct"
          ? `#include <iostream>\nint main(){ long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }`
          : source;
      return [name, code, expectation] as const;
    });
    const records = await Promise.all(entries.map(([, code]) => judged(language, code)));
    for (const [i, [name, , expectation]] of entries.entries()) verify(`${language}/${name}`, records[i], expectation);
    const accepted = records[0];
    expect(accepted.memoryKb).toBeGreaterThan(0);
    expect(accepted.cases.every((c) => c.stdout !== "" && c.memoryKb > 0)).toBe(true);
  }, 180_000);
});

test("a new config version is judged by the running judge at once (files by digest, no restart)", async () => {
  const sum = `#include <stdio.h>\nint main(void){ ${SOLVE_C} }`;
  const judgedOn = async (target: string) => {
    const form = submission("c", { "main.c": sum });
    const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${target}`, form)).body
      .data;
    return (await finalRecord(t, record.id, 60_000)).state;
  };
  const target = await problemWithData(t, cast, CONFIG, DATA);
  expect(await judgedOn(target)).toBe("accepted");
  // Same inputs, new answers (the product): the sum is now wrong.
  await uploadConfig(t, cast, target, CONFIG, { ...DATA, "data/1.out": "2\n", "data/2.out": "80\n" });
  expect(await judgedOn(target)).toBe("rejected");
}, 120_000);

test("nothing outside the sandbox was touched and no program outlived its run", async () => {
  for (const path of [join(judge.settings.workDir, escapeMark), `/usr/${escapeMark}`, `/${escapeMark}`])
    expect(existsSync(path)).toBe(false);
  // Live processes only: an exited sandbox's init may sit briefly as a zombie until its new parent reaps it.
  const live = (uid: number) =>
    Bun.spawnSync(["ps", "-o", "pid=,stat=,args=", "-u", String(uid)])
      .stdout.toString()
      .trim()
      .split("\n")
      .filter((line) => line && !/^\s*\d+\s+Z/.test(line))
      .map((line) => line.trim().split(/\s+/).slice(2).join(" "))
      .map((args) => (args === "/.runner" ? "runner" : args.startsWith("bwrap ") ? "bwrap" : args));
  for (const slot of judge.pool.slots) {
    // The slot's living container, and nothing else: bubblewrap outside, the runner (PID 1), the runs' init
    // (its fork) and the next run's spare (the init's fork, made a moment after the last run was reset).
    let seen = live(slot.uid);
    for (let i = 0; i < 400 && seen.length > 0 && seen.length < 4; i++) {
      await Bun.sleep(5);
      seen = live(slot.uid);
    }
    expect(seen).toEqual(seen.length === 0 ? [] : ["bwrap", "runner", "runner", "runner"]);
  }
});
