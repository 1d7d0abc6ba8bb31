import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, problemWithData, judgeStack, type JudgeStack } from "../helpers/judging";

// Checkers of our own (tests/fixtures/checkers, on our checker-kit.h) speaking testlib's protocol, and
// the tolerant built-in comparisons, judged by the real judge in the real sandbox, submitted through the API.
const UID_BASE = 65_000;
let t: TestApp;
let cast: Cast;
let judge: JudgeStack["judge"];
let stack: JudgeStack;

const fixture = (path: string) => readFileSync(join(import.meta.dir, "../fixtures", path), "utf8");
const KIT = fixture("checkers/checker-kit.h");
/** A checker compiled from one fixture source and its header, as a problem author would ship it. */
const checkerOf = (source: string) => ({
  spec: {
    files: [source, "checker-kit.h"],
    compileArgs: ["g++", "-O1", "-o", "checker", source],
    executeArgs: ["./checker"],
  },
  files: { [source]: fixture(`checkers/${source}`), "checker-kit.h": KIT },
});
const C = { name: "c", compileFiles: ["main.c"], compileArgs: ["gcc", "-O2", "-o", "main", "main.c"] };
const caseDefault = { time: "1s", memory: "64m", score: 50, executeFiles: ["main"], executeArgs: ["./main"] };
const cases = (n: number, fields: object[] = []) =>
  Array.from({ length: n }, (_, i) => ({ executeInputFile: `${i}.in`, executeOutputFile: `${i}.out`, ...fields[i] }));
const data = (pairs: [string, string][]) =>
  Object.fromEntries(
    pairs.flatMap(([input, output], i) => [
      [`${i}.in`, input],
      [`${i}.out`, output],
    ]),
  );

type JudgedCase = { state: string; score: number; timeMs: number; memoryKb: number; stdout: string; stderr: string };
type Judged = { state: string; score: number; cases: JudgedCase[] };

beforeAll(async () => {
  // A C++ checker takes a second or two of CPU to compile; other test files may be compiling at the same time.
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast, judge } = stack);
}, 60_000);
afterAll(() => stack?.close());

/** Submits `main` (a C program) as the member; the record as `viewer` sees it. */
async function judged(problem: string, main: string, viewer = cast.member.token): Promise<Judged & { id: string }> {
  const record = (
    await submit(
      t,
      cast.member.token,
      `/domains/${cast.domain.id}/problems/${problem}`,
      submission("c", { "main.c": main }),
    )
  ).body.data;
  await finalRecord(t, record.id, 180_000);
  return {
    id: record.id,
    ...(await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: viewer })).body.data,
  };
}

const program = (body: string) =>
  `#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) { ${body} return 0; }`;
const checkerCompiles = () => judge.logs.filter((line) => line.msg === "checker compiled").length;

describe("a checker that accepts the even numbers in any order", () => {
  const even = checkerOf("even-numbers.cpp");
  const DATA = data([
    ["6\n1 2 3 4 5 6\n", "2\n4\n6\n"],
    ["5\n10 7 8 3 12\n", "8 10 12\n"],
  ]);
  const PRINT_EVEN_BACKWARDS = program(
    'int n, a[100]; scanf("%d", &n); for (int i = 0; i < n; i++) scanf("%d", &a[i]); for (int i = n - 1; i >= 0; i--) if (a[i] % 2 == 0) printf("%d\\n", a[i]);',
  );
  const PRINT_ODD = program('int n, x; scanf("%d", &n); while (n--) { scanf("%d", &x); if (x % 2) printf("%d ", x); }');
  let problem: string;

  beforeAll(async () => {
    problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: even.spec, caseDefault, cases: cases(2) }] },
      { ...DATA, ...even.files },
    );
  });

  test("a correct program printing another order is accepted; the checker is compiled once for both records", async () => {
    const before = checkerCompiles();
    const [first, second] = await Promise.all([
      judged(problem, PRINT_EVEN_BACKWARDS),
      judged(problem, PRINT_EVEN_BACKWARDS),
    ]);
    for (const record of [first, second]) {
      expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
      expect(record).toMatchObject({ state: "accepted", score: 100 });
    }
    expect(first.cases[0].stdout).toBe("6\n4\n2\n");
    expect(first.cases[0].stderr).toContain("checker: ok 3 even numbers, in some order");
    expect(checkerCompiles() - before).toBe(1);
  }, 240_000);

  test("a wrong program is rejected with the checker's message, shown to the student on a pretest case", async () => {
    const record = await judged(problem, PRINT_ODD);
    expect(record).toMatchObject({ state: "rejected", score: 0 });
    expect(record.cases.map((c) => c.state)).toEqual(["wrong_answer", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("checker: wrong answer 1 is not one of the input's even numbers");
  }, 240_000);

  test("on a hidden case the message is blanked for the student and shown to staff with record.detail", async () => {
    const hidden = await problemWithData(
      t,
      cast,
      {
        languages: [{ ...C, checker: even.spec, caseDefault: { ...caseDefault, category: "secret" }, cases: cases(2) }],
      },
      { ...DATA, ...even.files },
    );
    const before = checkerCompiles();
    const asStudent = await judged(hidden, PRINT_ODD);
    const asOwner = (await t.api.get(`/domains/${cast.domain.id}/records/${asStudent.id}`, { token: cast.owner.token }))
      .body.data as Judged;
    expect(asStudent.cases[1]).toMatchObject({ state: "wrong_answer", stdout: "", stderr: "" });
    expect(asOwner.cases[1].stderr).toContain("checker: wrong answer expected 3 even numbers, found 2");
    // Same checker files, same command: the build of another problem is reused.
    expect(checkerCompiles()).toBe(before);
  }, 240_000);

  test("the program cannot reach the checker's directory, its build or the answer", async () => {
    const peek =
      program(`const char *paths[] = { "../check/.case/answer", "../check/checker", "../checker/checker", ".case/answer", "/work/.case/answer" };
      for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) { FILE *f = fopen(paths[i], "r"); if (f) { char line[256]; while (fgets(line, sizeof line, f)) fputs(line, stdout); return 0; } }
      puts("1");`);
    const record = await judged(problem, peek);
    expect(record.cases.map((c) => c.stdout)).toEqual(["1\n", "1\n"]);
    expect(record.state).toBe("rejected");
  }, 240_000);
});

describe("a checker shipped with the author's own testlib.h", () => {
  // Authors bring their own testlib.h in the archive; the judge bundles none. This header is a few lines
  // of ours under that name: enough to prove that `#include "testlib.h"` finds the archive's file.
  const AUTHOR_HEADER =
    "#pragma once\n#include <cstdio>\n#include <cstdlib>\n" +
    '#define AUTHOR_HEADER_MARK "from the archive\'s testlib.h"\n' +
    'inline void verdict(bool ok) { std::fprintf(stderr, "%s %s\\n", ok ? "ok" : "wrong answer", AUTHOR_HEADER_MARK); std::exit(ok ? 0 : 1); }\n';
  const CHECKER =
    '#include "testlib.h"\nint main(int, char **argv) {\n' +
    '  long long out = 0, ans = 1; FILE *o = std::fopen(argv[2], "r"), *a = std::fopen(argv[3], "r");\n' +
    '  if (!o || !a || std::fscanf(a, "%lld", &ans) != 1) return 3;\n' +
    '  verdict(std::fscanf(o, "%lld", &out) == 1 && out == ans);\n}\n';
  const spec = {
    files: ["check.cpp", "testlib.h"],
    compileArgs: ["g++", "-O1", "-o", "checker", "check.cpp"],
    executeArgs: ["./checker"],
  };

  test("compiles from the archive and judges with the header's code", async () => {
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: spec, caseDefault, cases: cases(2) }] },
      {
        ...data([
          ["1 2\n", "3\n"],
          ["5 5\n", "10\n"],
        ]),
        "check.cpp": CHECKER,
        "testlib.h": AUTHOR_HEADER,
      },
    );
    const record = await judged(
      problem,
      program('long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a == 5 ? 0 : a + b);'),
    );
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("checker: ok from the archive's testlib.h");
    expect(record.cases[1].stderr).toContain("checker: wrong answer from the archive's testlib.h");
  }, 240_000);
});

describe("checker failures end the record failed, never accepted", () => {
  const SUM = program('long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b);');

  test("a checker that crashes (an uncaught exception: abort): the case is a system error and the record fails", async () => {
    const crashing = checkerOf("crashing.cpp");
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: crashing.spec, caseDefault, cases: cases(1) }] },
      { ...data([["1 2\n", "3\n"]]), ...crashing.files },
    );
    const record = await judged(problem, SUM);
    expect(record.state).toBe("failed");
    expect(record.cases[0]).toMatchObject({ state: "system_error", score: 0, stdout: "3\n" });
    expect(record.cases[0].stderr).toContain("checker failure: it was killed (status 134)");
    expect(record.cases[0].stderr).toContain("out_of_range");
  }, 240_000);

  test("a checker exiting 3 (fail: inconsistent test data) fails the record with its message", async () => {
    const inconsistent = checkerOf("inconsistent-answer.cpp");
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: inconsistent.spec, caseDefault, cases: cases(2) }] },
      {
        ...data([
          ["1 2\n", "3\n"],
          ["2 2\n", "5\n"],
        ]),
        ...inconsistent.files,
      },
    );
    const record = await judged(problem, SUM);
    expect(record.state).toBe("failed");
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "system_error"]);
    expect(record.cases[1].stderr).toContain("checker failure: it exited with 3");
    expect(record.cases[1].stderr).toContain("the answer file says 5, but 2 + 2 = 4");
  }, 240_000);

  test("a checker that does not compile: its cases are system errors with the compiler's words", async () => {
    const broken = {
      files: ["checker.cpp"],
      compileArgs: ["g++", "-o", "checker", "checker.cpp"],
      executeArgs: ["./checker"],
    };
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: broken, caseDefault, cases: cases(1) }] },
      { ...data([["1 2\n", "3\n"]]), "checker.cpp": "int main( {" },
    );
    const record = await judged(problem, SUM);
    expect(record.state).toBe("failed");
    expect(record.cases[0].state).toBe("system_error");
    expect(record.cases[0].stderr).toContain("the checker did not compile");
  }, 240_000);
});

describe("partial points through a checker (exit 7, points p on stderr)", () => {
  const points = checkerOf("sum-and-product.cpp");
  const DATA = data([
    ["2 3\n", "5\n6\n"],
    ["4 5\n", "9\n20\n"],
  ]);
  const SOLVE = (product: string) =>
    program(`long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n%ld\\n", a + b, ${product});`);

  test("half right earns half of each case's score; the record is not accepted", async () => {
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker: points.spec, caseDefault: { ...caseDefault, score: 40 }, cases: cases(2) }] },
      { ...DATA, ...points.files },
    );
    const [half, full] = await Promise.all([judged(problem, SOLVE("a - b")), judged(problem, SOLVE("a * b"))]);
    expect(half).toMatchObject({ state: "rejected", score: 40 });
    expect(half.cases.map((c) => [c.state, c.score])).toEqual([
      ["wrong_answer", 20],
      ["wrong_answer", 20],
    ]);
    expect(half.cases[0].stderr).toContain("checker: points 0.5 the sum is right, the product is not");
    expect(full).toMatchObject({ state: "accepted", score: 80 });
  }, 240_000);

  test("a subtask scored by its minimum takes the lowest share of its cases", async () => {
    const config = {
      languages: [
        {
          ...C,
          checker: points.spec,
          caseDefault,
          cases: cases(2),
          scoring: "min",
          subtasks: [{ score: 60, cases: [0, 1] }],
        },
      ],
    };
    const problem = await problemWithData(t, cast, config, { ...DATA, ...points.files });
    // Right on the second case, half right on the first: min(0.5, 1) × 60.
    const record = await judged(problem, SOLVE("a == 2 ? 0 : a * b"));
    expect(record.cases.map((c) => [c.state, c.score])).toEqual([
      ["wrong_answer", 0],
      ["accepted", 30],
    ]);
    expect(record).toMatchObject({ state: "rejected", score: 30 });
  }, 240_000);
});

describe("built-in comparisons", () => {
  test("float with epsilon 1e-6: 0.3333333 is accepted for 1/3, 0.334 is not", async () => {
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, caseDefault: { ...caseDefault, compare: "float", epsilon: 1e-6 }, cases: cases(2) }] },
      data([
        ["1 3\n", "0.333333333333\n"],
        ["2 3\n", "0.666666666667\n"],
      ]),
    );
    const close = await judged(problem, program('double a, b; scanf("%lf %lf", &a, &b); printf("%.7f\\n", a / b);'));
    expect(close.cases.map((c) => c.stdout)).toEqual(["0.3333333\n", "0.6666667\n"]);
    expect(close).toMatchObject({ state: "accepted", score: 100 });
    const far = await judged(
      problem,
      program('double a, b; scanf("%lf %lf", &a, &b); printf("%.3f\\n", a / b + 0.0005);'),
    );
    expect(far.cases.map((c) => [c.stdout, c.state])).toEqual([
      ["0.334\n", "wrong_answer"],
      ["0.667\n", "wrong_answer"],
    ]);
  }, 240_000);

  test("case-insensitive tokens and unordered lines", async () => {
    const problem = await problemWithData(
      t,
      cast,
      {
        languages: [
          { ...C, caseDefault, cases: cases(2, [{ compare: "tokens-icase" }, { compare: "lines-unordered" }]) },
        ],
      },
      data([
        ["yes\n", "Yes\n"],
        ["fruit\n", "apple\nbanana\ncherry\n"],
      ]),
    );
    const answer = (fruit: string) =>
      program(
        `char word[16]; scanf("%15s", word); if (strcmp(word, "yes") == 0) puts("YES"); else printf("${fruit}");`,
      );
    const right = await judged(problem, answer("cherry  \\r\\napple\\nbanana"));
    expect(right.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
    const short = await judged(problem, answer("cherry\\napple\\n"));
    expect(short.cases.map((c) => c.state)).toEqual(["accepted", "wrong_answer"]);
  }, 240_000);
});

describe("subtasks with dependencies", () => {
  // Case i's input is i; the answer is 2i. The program says on stderr that it ran, so a case that
  // never ran is told apart by its report: no trace, no time, no memory.
  const CONFIG = {
    languages: [
      {
        ...C,
        caseDefault,
        cases: cases(4),
        subtasks: [
          { score: 20, cases: [0] },
          { score: 30, cases: [1, 2], dependsOn: [0] },
          { score: 50, cases: [3], dependsOn: [1] },
        ],
      },
    ],
  };
  const DATA = data([
    ["0\n", "0\n"],
    ["1\n", "2\n"],
    ["2\n", "4\n"],
    ["3\n", "6\n"],
  ]);
  const DOUBLE_BUT = (wrongOn: number) =>
    program(
      `int n; scanf("%d", &n); fprintf(stderr, "ran on %d\\n", n); printf("%d\\n", n == ${wrongOn} ? -1 : 2 * n);`,
    );
  let problem: string;

  beforeAll(async () => {
    problem = await problemWithData(t, cast, CONFIG, DATA);
  });

  test("all right: each subtask's score on its last case, the record accepted", async () => {
    const record = await judged(problem, DOUBLE_BUT(-5));
    expect(record.cases.map((c) => [c.state, c.score])).toEqual([
      ["accepted", 20],
      ["accepted", 0],
      ["accepted", 30],
      ["accepted", 50],
    ]);
    expect(record).toMatchObject({ state: "accepted", score: 100 });
  }, 240_000);

  test("the first subtask fails: the ones depending on it, directly or not, are never run", async () => {
    const record = await judged(problem, DOUBLE_BUT(0));
    expect(record.cases.map((c) => c.state)).toEqual(["wrong_answer", "canceled", "canceled", "canceled"]);
    expect(record.cases[0].stderr).toBe("ran on 0\n");
    for (const skipped of record.cases.slice(1)) {
      expect(skipped).toMatchObject({ score: 0, timeMs: 0, memoryKb: 0, stdout: "" });
      expect(skipped.stderr).not.toContain("ran on");
    }
    expect(record.cases[1].stderr).toBe("skipped: subtask 1 depends on subtask 0, which was not fully accepted");
    expect(record.cases[3].stderr).toBe("skipped: subtask 2 depends on subtask 1, which was not fully accepted");
    expect(record).toMatchObject({ state: "rejected", score: 0 });
  }, 240_000);

  test("one wrong case of a group scores the group 0 (all or nothing) and skips what depends on it", async () => {
    const record = await judged(problem, DOUBLE_BUT(2));
    expect(record.cases.map((c) => [c.state, c.score])).toEqual([
      ["accepted", 20],
      ["accepted", 0],
      ["wrong_answer", 0],
      ["canceled", 0],
    ]);
    expect(record.cases[1].memoryKb).toBeGreaterThan(0);
    expect(record).toMatchObject({ state: "rejected", score: 20 });
  }, 240_000);
});
