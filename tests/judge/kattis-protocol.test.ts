import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, problemWithData, judgeStack, type JudgeStack } from "../helpers/judging";

// The Kattis format's validator protocol ("protocol": "kattis" on a checker or an interactor), judged by
// the real judge in the real sandbox through the API, with our own validators (tests/fixtures/kattis).
const UID_BASE = 70_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/kattis", name), "utf8");
const validator = (source: string, flags: string[] = []) => ({
  files: [source],
  compileArgs: ["g++", "-O1", "-o", "validator", source],
  executeArgs: ["./validator"],
  protocol: "kattis",
  flags,
});
const C = { name: "c", preset: "c" };

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

type Judged = { state: string; score: number; cases: { state: string; stderr: string }[] };
async function judged(problem: string, source: string): Promise<Judged> {
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const record = (await submit(t, cast.member.token, path, submission("c", { "main.c": source }))).body.data;
  await finalRecord(t, record.id, 180_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body.data;
}
const program = (body: string) => `#include <math.h>\n#include <stdio.h>\nint main(void) { ${body} return 0; }`;

describe("a Kattis output validator with a float tolerance", () => {
  let problem: string;
  beforeAll(async () => {
    // The circle's area and circumference for a radius; the flags give the tolerance.
    const caseDefault = {
      time: "1s",
      memory: "64m",
      score: 50,
      checker: validator("float-validator.cpp", ["tolerance", "1e-4"]),
    };
    const cases = [
      { executeInputFile: "1.in", executeOutputFile: "1.ans" },
      { executeInputFile: "2.in", executeOutputFile: "2.ans" },
    ];
    problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, caseDefault, cases }] },
      {
        "float-validator.cpp": fixture("float-validator.cpp"),
        "1.in": "1\n",
        "1.ans": "3.14159265 6.28318531\n",
        "2.in": "2.5\n",
        "2.ans": "19.63495408 15.70796327\n",
      },
    );
  });

  test("an answer within the tolerance is accepted, with the validator's message", async () => {
    const record = await judged(
      problem,
      program('double r; scanf("%lf", &r); printf("%.5f %.5f\\n", M_PI * r * r, 2 * M_PI * r);'),
    );
    expect(record).toMatchObject({ state: "accepted", score: 100 });
    expect(record.cases[0].stderr).toContain("checker: every number within the tolerance");
  }, 240_000);

  test("an imprecise answer is a wrong answer that says where", async () => {
    const record = await judged(
      problem,
      program('double r; scanf("%lf", &r); printf("%.2f %.2f\\n", 3.14 * r * r, 2 * 3.14 * r);'),
    );
    expect(record.cases.map((c) => c.state)).toEqual(["wrong_answer", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("checker: too far off: number 1, expected 3.14159265, got 3.14");
  }, 240_000);

  test("a validator exiting with neither 42 nor 43 is its failure, not the program's", async () => {
    // The judge's answer file is missing from the validator's view: it exits 1.
    const broken = await problemWithData(
      t,
      cast,
      {
        languages: [
          {
            ...C,
            caseDefault: { checker: validator("float-validator.cpp") },
            cases: [{ executeInputFile: "1.in", executeOutputFile: "1.ans" }],
          },
        ],
      },
      {
        "float-validator.cpp": fixture("float-validator.cpp").replace("std::fopen(argv[2]", "std::fopen(argv[9]"),
        "1.in": "1\n",
        "1.ans": "3.14159265\n",
      },
    );
    const record = await judged(broken, program('puts("3.14159265");'));
    expect(record.cases[0].state).toBe("system_error");
    expect(record.cases[0].stderr).toContain(
      "checker failure: it exited with 1 (a Kattis validator exits with 42 or 43)",
    );
  }, 240_000);
});

describe("a Kattis interactive problem", () => {
  test("the validator is the interactor: a binary search is accepted, an early stop is not", async () => {
    const caseDefault = { time: "1s", memory: "64m", score: 50, interactor: validator("guess-interactor.cpp") };
    // No answer files: an interactive problem's .ans may be absent.
    const cases = [{ executeInputFile: "1.in" }, { executeInputFile: "2.in" }];
    const problem = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, caseDefault, cases }] },
      {
        "guess-interactor.cpp": fixture("guess-interactor.cpp"),
        "1.in": "1\n",
        "2.in": "777777777\n",
      },
    );
    const search = program(
      "long lo = 1, hi = 1000000000; char r[4]; for (;;) { long m = lo + (hi - lo) / 2; printf(\"%ld\\n\", m); fflush(stdout); if (scanf(\"%3s\", r) != 1 || r[0] == '=') break; if (r[0] == '<') lo = m + 1; else hi = m - 1; }",
    );
    const good = await judged(problem, search);
    expect(good).toMatchObject({ state: "accepted", score: 100 });
    expect(good.cases[1].stderr).toMatch(/interactor: found in \d+ guesses/);
    const quitter = await judged(problem, program('printf("5\\n"); fflush(stdout);'));
    expect(quitter.cases.map((c) => c.state)).toEqual(["wrong_answer", "wrong_answer"]);
    expect(quitter.cases[0].stderr).toContain("interactor: the program stopped after 1 guesses");
  }, 240_000);
});
