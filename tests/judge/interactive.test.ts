import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, problemWithData, judgeStack, type JudgeStack } from "../helpers/judging";

// Interactive problems through the API, judged by the real judge in the real sandbox: our own
// guess-the-number interactor (tests/fixtures/interactors, testlib's interactor protocol) talking to
// programs that play well, badly, not at all, or go looking for the secret number.
const UID_BASE = 68_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;

const fixture = (path: string) => readFileSync(join(import.meta.dir, "../fixtures", path), "utf8");
const KIT = { "checker-kit.h": fixture("checkers/checker-kit.h") };
const build = (source: string, name: string) => ({
  files: [source, "checker-kit.h"],
  compileArgs: ["g++", "-O1", "-o", name, source],
  executeArgs: [`./${name}`],
});
const INTERACTOR = build("guess-number.cpp", "interactor");
const FILES = {
  ...KIT,
  "guess-number.cpp": fixture("interactors/guess-number.cpp"),
  "guess-count.cpp": fixture("interactors/guess-count.cpp"),
};
// Secrets near both ends and in the middle; "n limit strict": 30 guesses are enough for a binary search.
const SECRETS = ["1 100 30\n", "999999999 100 30\n", "777777777 100 30\n"];
const C = { name: "c", preset: "c" };
const caseDefault = { time: "1s", memory: "64m", score: 10, interactor: INTERACTOR };
const cases = SECRETS.map((_, i) => ({ executeInputFile: `${i}.in` }));
const inputs = Object.fromEntries(SECRETS.map((secret, i) => [`${i}.in`, secret]));

type JudgedCase = { state: string; score: number; timeMs: number; stdout: string; stderr: string };
type Judged = { state: string; score: number; cases: JudgedCase[] };

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

async function judged(problem: string, language: string, file: string, source: string): Promise<Judged> {
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const record = (await submit(t, cast.member.token, path, submission(language, { [file]: source }))).body.data;
  await finalRecord(t, record.id, 180_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body.data;
}

/** A C program: `guess(m)` prints a guess and answers with the interactor's reply ('<', '>' or '='). */
const c = (body: string) => `#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char guess(long m) { char r[4] = ""; printf("%ld\\n", m); fflush(stdout); if (scanf("%3s", r) != 1) return 0; return r[0]; }
int main(void) { ${body} return 0; }`;
/** Splits the range at `lo + (hi - lo) / k`: 2 is a binary search; 3 takes about 50 guesses near the top. */
const search = (k: number) =>
  `long lo = 1, hi = 1000000000; for (;;) { long m = lo + (hi - lo) / ${k}; char r = guess(m); if (r == '=' || !r) break; if (r == '<') lo = m + 1; else hi = m - 1; }`;

describe("a guess-the-number problem with an interactor", () => {
  let problem: string;
  beforeAll(async () => {
    problem = await problemWithData(t, cast, { languages: [{ ...C, caseDefault, cases }] }, { ...FILES, ...inputs });
  });

  test("a binary search is accepted on every case, with the interactor's message", async () => {
    const record = await judged(problem, "c", "guess.c", c(search(2)));
    expect(record.cases.map((x) => x.state)).toEqual(["accepted", "accepted", "accepted"]);
    expect(record).toMatchObject({ state: "accepted", score: 30 });
    expect(record.cases[2].stderr).toContain("interactor: ok found 777777777 in 28 guesses");
  }, 240_000);

  test("too many guesses earn the interactor's partial points; the one found early earns them all", async () => {
    const record = await judged(problem, "c", "thirds.c", c(search(3)));
    expect(record.cases.map((x) => [x.state, x.score])).toEqual([
      ["accepted", 10],
      ["wrong_answer", 5],
      ["wrong_answer", 5],
    ]);
    expect(record.cases[1].stderr).toContain("more than 30");
  }, 240_000);

  test("a program that stops early is a wrong answer the interactor explains", async () => {
    const record = await judged(problem, "c", "quit.c", c("guess(500000000);"));
    expect(record.cases.map((x) => x.state)).toEqual(["wrong_answer", "wrong_answer", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("the program stopped after 1 guesses");
  }, 240_000);

  test("a program that crashes mid-game is a runtime error, not the interactor's wrong answer", async () => {
    const record = await judged(problem, "c", "crash.c", c("guess(500000000); *(volatile int *)0 = 1;"));
    expect(record.cases.map((x) => x.state)).toEqual(["runtime_error", "runtime_error", "runtime_error"]);
  }, 240_000);

  test("a program that waits for the interactor, which waits for it, runs out of time", async () => {
    const record = await judged(problem, "c", "silent.c", c('char r[4]; if (scanf("%3s", r) == 1) guess(1);'));
    expect(record.cases.map((x) => x.state)).toEqual([
      "time_limit_exceeded",
      "time_limit_exceeded",
      "time_limit_exceeded",
    ]);
  }, 240_000);

  test("a program flooding its stderr mid-game is stopped at the output limit", async () => {
    const flood = c(
      "static char line[65536]; memset(line, 'x', sizeof line - 1); guess(1); for (;;) fputs(line, stderr);",
    );
    const record = await judged(problem, "c", "flood.c", flood);
    expect(record.cases.map((x) => x.state)).toEqual([
      "output_limit_exceeded",
      "output_limit_exceeded",
      "output_limit_exceeded",
    ]);
  }, 240_000);

  test("a program that keeps going after the interactor gave a wrong answer gets the wrong answer", async () => {
    // It ignores the broken pipe and spins until its CPU runs out: the interactor ended first, so that
    // is a consequence, not the verdict.
    // Where its first guess is right (case 0), the interactor accepts first, and the spinning is its own.
    const stubborn = c('signal(SIGPIPE, SIG_IGN); for (;;) { printf("1\\n"); fflush(stdout); }');
    const record = await judged(problem, "c", "stubborn.c", stubborn);
    expect(record.cases.map((x) => x.state)).toEqual(["time_limit_exceeded", "wrong_answer", "wrong_answer"]);
    expect(record.cases[1].stderr).toContain("not found in 100 guesses");
  }, 240_000);
});

describe("what the program of an interactive case cannot reach", () => {
  let problem: string;
  beforeAll(async () => {
    problem = await problemWithData(t, cast, { languages: [{ ...C, caseDefault, cases }] }, { ...FILES, ...inputs });
  });

  test("the secret: not in /work, not through another process's directory or descriptors", async () => {
    // If the interactor's directory were visible, or its process (same uid) in the program's /proc, the
    // program would read the number and guess it at once.
    const record = await judged(
      problem,
      "c",
      "spy.c",
      c(`long found = 0; char p[300];
  const char *direct[] = { "/work/.interactor/input", ".interactor/input", "/tmp/input" };
  for (int i = 0; i < 3; i++) { FILE *f = fopen(direct[i], "r"); if (f) { if (fscanf(f, "%ld", &found) == 1) fprintf(stderr, "read %s\\n", direct[i]); fclose(f); } }
  DIR *d = opendir("/proc"); struct dirent *e; int seen = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid()) continue;
    seen++;
    for (int fd = -1; fd < 16; fd++) {
      if (fd < 0) snprintf(p, sizeof p, "/proc/%s/cwd/input", e->d_name); else snprintf(p, sizeof p, "/proc/%s/fd/%d", e->d_name, fd);
      if (fd >= 0 && fd <= 2) continue;
      FILE *f = fopen(p, "r"); long n;
      if (f) { if (fscanf(f, "%ld", &n) == 1 && n >= 1) { found = n; fprintf(stderr, "read %s\\n", p); } fclose(f); }
    }
  }
  fprintf(stderr, "%d other processes; %s\\n", seen, found ? "found it" : "found nothing");
  guess(found >= 1 && found <= 1000000000 ? found : 1);`),
    );
    expect(record.cases.map((x) => x.state)).toEqual(["accepted", "wrong_answer", "wrong_answer"]);
    // Not even its keeper (PID 1 of its namespaces) is there to look into.
    expect(record.cases[1].stderr).toContain("0 other processes; found nothing");
  }, 240_000);

  test("the interactor's process: a kill of every process it may signal reaches nothing, and the game goes on", async () => {
    const record = await judged(problem, "c", "killer.c", c(`kill(-1, SIGKILL); kill(-1, SIGSTOP); ${search(2)}`));
    expect(record).toMatchObject({ state: "accepted", score: 30 });
  }, 240_000);
});

describe("an interactor and a checker together", () => {
  test("the checker judges what the interactor wrote, once the interactor has accepted", async () => {
    // The interactor accepts up to 100 guesses; the checker (the answer file says 30) is stricter.
    const checked = {
      ...caseDefault,
      checker: build("guess-count.cpp", "checker"),
    };
    const data = { "0.in": "999999999 100\n", "0.out": "30\n" };
    const config = {
      languages: [{ ...C, caseDefault: checked, cases: [{ executeInputFile: "0.in", executeOutputFile: "0.out" }] }],
    };
    const problem = await problemWithData(t, cast, config, { ...FILES, ...data });
    const good = await judged(problem, "c", "binary.c", c(search(2)));
    expect(good.cases[0].state).toBe("accepted");
    expect(good.cases[0].stderr).toMatch(
      /interactor: ok found 999999999 in \d+ guesses\nchecker: ok \d+ guesses, at most 30/,
    );
    const slow = await judged(problem, "c", "thirds.c", c(search(3)));
    expect(slow.cases[0].state).toBe("wrong_answer");
    expect(slow.cases[0].stderr).toMatch(/checker: wrong answer \d+ guesses, more than 30/);
  }, 240_000);
});

describe("an interactor that fails", () => {
  test("a case whose input the interactor cannot read is a system error that says so", async () => {
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, caseDefault, cases: [{ executeInputFile: "0.in" }] }] },
      { ...FILES, "0.in": "not a number\n" },
    );
    const record = await judged(problem, "c", "binary.c", c(search(2)));
    expect(record.cases[0].state).toBe("system_error");
    expect(record.cases[0].stderr).toContain("interactor failure: it exited with 3");
    expect(record.cases[0].stderr).toContain('FAIL the input is not "n limit [strict]"');
  }, 240_000);
});

describe("interactive cases in the managed runtimes' presets", () => {
  test("Java under 256 MiB and Python 3 play the game and are accepted", async () => {
    const config = {
      languageDefault: { caseDefault: { ...caseDefault, time: "3s", memory: "256m" }, cases },
      languages: [
        { name: "java", preset: "java" },
        { name: "python3", preset: "python3" },
      ],
    };
    const problem = await problemWithData(t, cast, config, { ...FILES, ...inputs });
    const java = `import java.io.*;
public class Guess {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    long lo = 1, hi = 1_000_000_000L;
    while (true) {
      long m = lo + (hi - lo) / 2;
      System.out.println(m);
      System.out.flush();
      String r = in.readLine();
      if (r == null || r.equals("=")) break;
      if (r.equals("<")) lo = m + 1; else hi = m - 1;
    }
  }
}
`;
    const python = `lo, hi = 1, 10**9
while True:
    m = (lo + hi) // 2
    print(m, flush=True)
    r = input().strip()
    if r == "=":
        break
    if r == "<":
        lo = m + 1
    else:
        hi = m - 1
`;
    const [j, p] = await Promise.all([
      judged(problem, "java", "Guess.java", java),
      judged(problem, "python3", "guess.py", python),
    ]);
    expect(j).toMatchObject({ state: "accepted", score: 30 });
    expect(p).toMatchObject({ state: "accepted", score: 30 });
  }, 300_000);
});
