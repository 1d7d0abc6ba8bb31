import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { judgeStack, problemWithData, finalRecord, type JudgeStack } from "../helpers/judging";
import { submit, submission } from "../helpers/records";

// Judging stages (docs/config-reference.md "Stages") with the real linters in the real sandbox: a C++ course's
// keyword rules, clang-tidy and cpplint findings and a style checker shipped in the archive, each a deduction
// with a comment naming the file and line; a forbidden header; tools that hang, crash or babble; a rejudge and
// a resubmission that take the stages from the judge's cache; the grade book's columns.
const UID_BASE = 77_000;
let stack: JudgeStack;
let problem: string;
let brokenProblem: string;

const DATA = { "1.in": "20 22\n", "1.out": "42\n", "2.in": "-1 1\n", "2.out": "0\n" };
const cases = [
  { executeInputFile: "1.in", executeOutputFile: "1.out", score: 50 },
  { executeInputFile: "2.in", executeOutputFile: "2.out", score: 50 },
];
// The course's own style checker: one `points file:line: comment` line per line that ends in a space.
const STYLE = `import sys
for name in sys.argv[1:]:
    for number, line in enumerate(open(name, encoding="utf-8"), 1):
        if line.rstrip("\\n") != line.rstrip():
            print(f"1 {name}:{number}: trailing whitespace")
`;
const STAGES = [
  {
    name: "goto",
    kind: "keywords",
    patterns: [{ pattern: "goto", deduction: 5, message: "goto is not allowed in this course" }],
    maxDeduction: 20,
  },
  {
    name: "headers",
    kind: "keywords",
    patterns: [{ regex: "#\\s*include\\s*<algorithm>", forbid: true, message: "<algorithm> is banned: sort by hand" }],
  },
  { name: "tidy", kind: "clang-tidy", checks: ["bugprone-*"], deductions: [{ check: "bugprone-*", points: 3 }] },
  { name: "lines", kind: "cpplint", checks: ["whitespace/line_length"], deduction: 2, maxDeduction: 6 },
  {
    name: "style",
    kind: "command",
    command: ["python3", "style.py", "main.cpp"],
    files: ["style.py"],
    at: "after-tests",
  },
];

const CLEAN = `#include <cstdio>

int main() {
  long long first = 0;
  long long second = 0;
  if (std::scanf("%lld %lld", &first, &second) != 2) return 1;
  std::printf("%lld\\n", first + second);
  return 0;
}
`;
// Two gotos (and one in a comment and one in a string, not counted), an integer division used as a double
// (bugprone-integer-division), one line over 80 characters, one line ending in a space.
const DIRTY = `#include <cstdio>

int main() {
  long long first = 0, second = 0;
  int whole = 7, parts = 2;
  double share = 0;
  const char* word = "goto";
  // a goto in a comment is not code
  if (std::scanf("%lld %lld", &first, &second) != 2) goto fail;
  share = whole / parts;
  if (share > 1e18) goto done;
done:
  std::printf("%lld\\n", first + second);  // the sum, printed on one line of its own, as the statement says
  (void)word; 
  return 0;
fail:
  return 1;
}
`;

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2" });
  const config = { languages: [{ name: "cpp", preset: "cpp", cases, stages: STAGES }] };
  problem = await problemWithData(stack.t, stack.cast, config, { ...DATA, "style.py": STYLE });
  const broken = [
    { name: "hangs", kind: "command", command: ["sh", "-c", "while :; do :; done"], time: "1s" },
    { name: "crashes", kind: "command", command: ["sh", "-c", "kill -SEGV $$"] },
    { name: "babbles", kind: "command", command: ["sh", "-c", "echo all good, I think; exit 3"] },
    { name: "backtracks", kind: "keywords", patterns: [{ regex: "(a+)+$", deduction: 1 }], time: "500ms" },
  ];
  const brokenConfig = { languages: [{ name: "cpp", preset: "cpp", cases, stages: broken }] };
  brokenProblem = await problemWithData(stack.t, stack.cast, brokenConfig, DATA);
}, 120_000);
afterAll(() => stack.close());

async function judged(source: string, where = problem) {
  const { t, cast } = stack;
  const path = `/domains/${cast.domain.id}/problems/${where}`;
  const sent = await submit(t, cast.member.token, path, submission("cpp", { "sum.cpp": source }));
  expect(sent.body.errorCode).toBe("Success");
  await finalRecord(t, sent.body.data.id, 120_000);
  return read(sent.body.data.id);
}

async function read(id: string) {
  const { t, cast } = stack;
  return (await t.api.get(`/domains/${cast.domain.id}/records/${id}`, { token: cast.member.token })).body.data;
}

const stageRuns = () => stack.judge.logs.filter((line) => line.msg === "stage ran").length;

describe("a C++ course's stages", () => {
  test("a clean program keeps full marks: every stage done, nothing deducted", async () => {
    const record = await judged(CLEAN);
    expect(record).toMatchObject({ state: "accepted", score: 100 });
    expect(
      record.stages.map((s: { name: string; state: string; deduction: number }) => [s.name, s.state, s.deduction]),
    ).toEqual([
      ["goto", "done", 0],
      ["headers", "done", 0],
      ["tidy", "done", 0],
      ["lines", "done", 0],
      ["style", "done", 0],
    ]);
  }, 180_000);

  test("two gotos, a bugprone finding, a long line and a trailing space: each deducted, each with its file and line", async () => {
    const record = await judged(DIRTY);
    // The tests pass (100); 2 × 5 + 3 + 2 + 1 come off.
    expect(record).toMatchObject({ state: "accepted", score: 84 });
    const by = Object.fromEntries(record.stages.map((s: { name: string }) => [s.name, s]));
    expect(by.goto).toMatchObject({ state: "done", deduction: 10, forbidden: false });
    expect(by.goto.comments).toEqual([
      { file: "main.cpp", line: 9, check: "goto", message: "goto is not allowed in this course", points: 5 },
      { file: "main.cpp", line: 11, check: "goto", message: "goto is not allowed in this course", points: 5 },
    ]);
    expect(by.tidy).toMatchObject({ state: "done", deduction: 3 });
    expect(by.tidy.comments).toEqual([
      expect.objectContaining({ file: "main.cpp", line: 10, check: "bugprone-integer-division", points: 3 }),
    ]);
    expect(by.lines).toMatchObject({ state: "done", deduction: 2 });
    expect(by.lines.comments).toEqual([
      expect.objectContaining({ file: "main.cpp", line: 13, check: "whitespace/line_length", points: 2 }),
    ]);
    expect(by.style).toMatchObject({ state: "done", deduction: 1 });
    expect(by.style.comments).toEqual([
      expect.objectContaining({ file: "main.cpp", line: 14, message: expect.stringContaining("trailing whitespace") }),
    ]);
  }, 180_000);

  test("a hostile submission cannot switch the checks off: its own style.py, NOLINT, file names that look like options", async () => {
    const { t, cast } = stack;
    const quiet = DIRTY.replace("share = whole / parts;", "share = whole / parts;  // NOLINT").replace(
      "statement says",
      "statement says  // NOLINT(whitespace/line_length)",
    );
    const files = {
      "main.cpp": quiet,
      // Would print no finding, and so take nothing off, if it ran instead of the course's.
      "style.py": "print()\n",
      "--checks=-*.cpp": "int unused_one = 1;\n",
      "--filter=-,+zz.cpp": "int unused_two = 2;\n",
    };
    const path = `/domains/${cast.domain.id}/problems/${problem}`;
    const sent = await submit(t, cast.member.token, path, submission("cpp", files));
    expect(sent.body.errorCode).toBe("Success");
    await finalRecord(t, sent.body.data.id, 120_000);
    const record = await read(sent.body.data.id);
    const by = Object.fromEntries(record.stages.map((s: { name: string }) => [s.name, s]));
    expect([by.tidy.state, by.lines.state, by.style.state]).toEqual(["done", "done", "done"]);
    expect([by.goto.deduction, by.tidy.deduction, by.lines.deduction, by.style.deduction]).toEqual([10, 3, 2, 1]);
    expect(record.score).toBe(84);
  }, 180_000);

  test("a forbidden header sets the score to 0, says why, and is no acceptance", async () => {
    const record = await judged(CLEAN.replace("#include <cstdio>", "#include <algorithm>\n#include <cstdio>"));
    expect(record).toMatchObject({ state: "rejected", score: 0 });
    const headers = record.stages.find((s: { name: string }) => s.name === "headers");
    expect(headers).toMatchObject({ state: "done", forbidden: true });
    expect(headers.message).toContain("<algorithm> is banned");
    expect(headers.comments[0]).toMatchObject({ file: "main.cpp", line: 1 });
  }, 180_000);

  test("a compile error runs no if-compiles stage: each says it was skipped", async () => {
    const record = await judged("int main( {\n");
    expect(record.state).toBe("rejected");
    expect(record.stages.every((s: { state: string }) => s.state === "skipped")).toBe(true);
  }, 180_000);

  test("a rejudge and a resubmission of the same code take the stages from the cache and say the same", async () => {
    const first = await judged(DIRTY);
    const runs = stageRuns();
    const again = await judged(DIRTY);
    const { t, cast } = stack;
    const rejudged = await t.api.post(
      `/domains/${cast.domain.id}/records/${first.id}/rejudge`,
      {},
      {
        token: cast.admin.token,
      },
    );
    expect(rejudged.body.errorCode).toBe("Success");
    await Bun.sleep(200);
    await finalRecord(t, first.id, 120_000);
    const after = await read(first.id);
    expect(stageRuns()).toBe(runs);
    for (const record of [again, after]) {
      expect(record.score).toBe(84);
      expect(record.stages).toEqual(first.stages);
    }
  }, 240_000);
});

describe("stages whose tool cannot do its job", () => {
  test("a hang, a crash, output that is no finding and a runaway pattern: each a failed stage, nothing deducted", async () => {
    // An identifier of 34 a's: `(a+)+$` tries every way to split it before it fails.
    const runaway = CLEAN.replace(
      "return 0;",
      "int aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 0;\n  return aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;",
    );
    const record = await judged(runaway, brokenProblem);
    expect(record).toMatchObject({ state: "accepted", score: 100 });
    const by = Object.fromEntries(record.stages.map((s: { name: string }) => [s.name, s]));
    for (const name of ["hangs", "crashes", "babbles", "backtracks"])
      expect(by[name]).toMatchObject({ state: "failed", deduction: 0, comments: [] });
    expect(by.hangs.message).toContain("ran out of time");
    expect(by.crashes.message).toContain("killed");
    expect(by.babbles.message).toContain("exited with 3");
    expect(by.backtracks.message).toContain("ran out of time");
    // Failures are not kept: the next submission runs them again.
    const runs = stageRuns();
    await judged(runaway, brokenProblem);
    expect(stageRuns()).toBe(runs + 4);
  }, 240_000);
});

describe("the grade book", () => {
  test("a set with gradeStages shows each stage's deduction beside the problem's score", async () => {
    const { t, cast } = stack;
    const d = `/domains/${cast.domain.id}`;
    const set = (
      await t.api.post(`${d}/problem_sets`, { title: "Lab 3", gradeStages: true }, { token: cast.admin.token })
    ).body.data;
    expect(set.gradeStages).toBe(true);
    await t.api.post(`${d}/problem_sets/${set.id}/problems`, { problem }, { token: cast.admin.token });
    const path = `${d}/problem_sets/${set.id}/problems/${problem}/submit`;
    const sent = await submit(t, cast.member.token, path, submission("cpp", { "sum.cpp": DIRTY }));
    await finalRecord(t, sent.body.data.id, 120_000);
    const csv = async () =>
      (
        await t.app.handle(
          new Request(`http://localhost/api/v1${d}/problem_sets/${set.id}/scoreboard.csv`, {
            headers: { authorization: `Bearer ${cast.admin.token}` },
          }),
        )
      ).text();
    const [header, ...rows] = (await csv())
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    const title = (await t.api.get(`${d}/problems/${problem}`, { token: cast.admin.token })).body.data.title;
    const columns = header.split(",");
    for (const stage of ["goto", "headers", "tidy", "lines", "style"]) expect(columns).toContain(`${title}: ${stage}`);
    const member = rows.map((row) => row.split(",")).find((cells) => cells.includes(cast.member.user.username))!;
    const cell = (name: string) => member[columns.indexOf(name)];
    expect(cell(title)).toBe("84");
    expect([cell(`${title}: goto`), cell(`${title}: tidy`), cell(`${title}: lines`), cell(`${title}: style`)]).toEqual([
      "-10",
      "-3",
      "-2",
      "-1",
    ]);
    // Without the setting the grade book has no stage column.
    await t.api.patch(`${d}/problem_sets/${set.id}`, { gradeStages: false }, { token: cast.admin.token });
    expect((await csv()).split("\r\n")[0]).not.toContain(": goto");
  }, 240_000);
});
