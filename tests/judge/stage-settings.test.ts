import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { judgeStack, problemWithData, finalRecord, type JudgeStack } from "../helpers/judging";
import { submit, submission } from "../helpers/records";

// A stage's tools read the submission's files as sources only (issue 52): no file of the submission is a tool's
// setting or a module of the course's script. Each threat is a file the tools once took from /work, each
// submitted beside the same program: cpplint's CPPLINT.cfg, clang-tidy's .clang-tidy (its CheckOptions) and
// compile_commands.json, cppcheck's std.cfg (read from the current directory), a re.py that the course's
// style.py imported. Each must leave every deduction as it is without it.
const UID_BASE = 78_000;
let stack: JudgeStack;
let problem: string;

const DATA = { "1.in": "20 22\n", "1.out": "42\n" };
// The course's style checker, as the docs run it: one point per line that ends in a space.
const STYLE = `import re, sys
for name in sys.argv[1:]:
    for number, line in enumerate(open(name, encoding="utf-8"), 1):
        if re.search(r"[ \\t]$", line.rstrip("\\n")):
            print(f"1 {name}:{number}: trailing whitespace")
`;
const STAGES = [
  { name: "tidy", kind: "clang-tidy", checks: ["bugprone-*"], deduction: 3 },
  { name: "lines", kind: "cpplint", checks: ["whitespace/line_length"], deduction: 2 },
  { name: "leaks", kind: "cppcheck", checks: ["memleak"], deduction: 4 },
  { name: "style", kind: "command", command: ["python3", "style.py", "main.cpp"], files: ["style.py"] },
];
// Easily swapped parameters (clang-tidy, unless QUIET is defined), a line over 80 characters (cpplint), a
// leak (cppcheck, by its std.cfg's malloc), a line ending in a space (the course's style.py).
const SOURCE = `#include <cstdio>
#include <cstdlib>

#ifndef QUIET
void show(int count, int limit) {
  std::printf("%d\\n", count);
  std::printf("%d\\n", limit);
}
#endif

int main() {
  long long first = 0;
  long long second = 0;
  char *kept = static_cast<char *>(malloc(16));
  if (std::scanf("%lld %lld", &first, &second) != 2) first = 0;
  std::printf("%lld\\n", first + second);  // the sum, on a line of its own, as asked
  return 0; 
}
`;
/** What each stage takes off SOURCE, with nothing beside it. */
const DEDUCTIONS = { tidy: 3, lines: 2, leaks: 4, style: 1 };

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2" });
  const cases = [{ executeInputFile: "1.in", executeOutputFile: "1.out", score: 100 }];
  const config = { languages: [{ name: "cpp", preset: "cpp", cases, stages: STAGES }] };
  problem = await problemWithData(stack.t, stack.cast, config, { ...DATA, "style.py": STYLE });
}, 120_000);
afterAll(() => stack?.close());

/** The record's score and each stage's state and deduction, for SOURCE beside these files. */
async function judgedBeside(files: Record<string, string>) {
  const { t, cast } = stack;
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const sent = await submit(t, cast.member.token, path, submission("cpp", { "main.cpp": SOURCE, ...files }));
  expect(sent.body.errorCode).toBe("Success");
  await finalRecord(t, sent.body.data.id, 120_000);
  const record = (
    await t.api.get(`/domains/${cast.domain.id}/records/${sent.body.data.id}`, { token: cast.member.token })
  ).body.data;
  const stages = record.stages as { name: string; state: string; deduction: number }[];
  return {
    score: record.score,
    states: stages.map((s) => s.state),
    deductions: Object.fromEntries(stages.map((s) => [s.name, s.deduction])),
  };
}

const UNCHANGED = { score: 90, states: ["done", "done", "done", "done"], deductions: DEDUCTIONS };

describe("a submission's files are no stage's settings", () => {
  test("alone, the program loses a deduction to each stage", async () => {
    expect(await judgedBeside({})).toEqual(UNCHANGED);
  }, 180_000);

  test("a submitted CPPLINT.cfg (exclude every file, filter every check) changes no deduction", async () => {
    const config = "set noparent\nexclude_files=.*\nfilter=-whitespace,-build,-legal,-readability\n";
    expect(await judgedBeside({ "CPPLINT.cfg": config, "sub/CPPLINT.cfg": config })).toEqual(UNCHANGED);
  }, 180_000);

  test("a submitted .clang-tidy with CheckOptions and a compile_commands.json change no deduction", async () => {
    const tidy = "CheckOptions:\n  - key: bugprone-easily-swappable-parameters.MinimumLength\n    value: 3\n";
    const database = JSON.stringify([{ directory: "/work", file: "main.cpp", command: "c++ -DQUIET -c main.cpp" }]);
    expect(
      await judgedBeside({ ".clang-tidy": tidy, "compile_commands.json": database, "compile_flags.txt": "-DQUIET\n" }),
    ).toEqual(UNCHANGED);
  }, 180_000);

  test("a submitted std.cfg (a library that knows no malloc) does not replace cppcheck's own", async () => {
    const empty = '<?xml version="1.0"?>\n<def format="2"/>\n';
    expect(await judgedBeside({ "std.cfg": empty, "posix.cfg": empty })).toEqual(UNCHANGED);
  }, 180_000);

  test("the course's style.py: a submitted re.py is not its `re`, a file in its way is left out", async () => {
    const quiet = "import sys\nsys.exit(0)\n";
    // style.py/notes is a folder where the course's file goes: laid out together, the stage could not run.
    const files = { "re.py": quiet, ".course/re.py": quiet, "style.py/notes": "mine\n" };
    expect(await judgedBeside(files)).toEqual(UNCHANGED);
  }, 180_000);
});
