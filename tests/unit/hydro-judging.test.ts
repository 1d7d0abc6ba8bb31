import { describe, expect, test } from "bun:test";
import { configFor, data, readOne, refusal } from "../helpers/hydro-packages";

// How a Hydro problem is judged (testdata/config.yaml's type, checker_type, checker, interactor, filename),
// and the configs we cannot honour, on packages of our own.

const CHECKER = '#include "testlib.h"\n// Our own: the first numbers of the answer and the output must match.\n';

describe("interactive problems, file I/O and the other checkers", () => {
  const base = { "problem.yaml": "title: T\n", "problem_en.md": "T\n", "testdata/testlib.h": "// ours\n" };

  test("an interactor of testlib's kind, cases without answers, the interactor's calling noted", () => {
    const problem = readOne({
      ...base,
      "testdata/config.yaml": `type: interactive
interactor: interactor.cc
time: 2s
memory: 128m
subtasks:
  - score: 100
    cases: [{ input: 1.in }, { input: 2.in }]
`,
      "testdata/interactor.cc": '#include "testlib.h"\n// Says higher or lower until the number is named.\n',
      ...data("1.in", "2.in"),
    });
    expect(problem).toMatchObject({ compare: null, checker: null, fileInput: null, timeMs: 2000, memoryMb: 128 });
    expect(problem.interactor).toEqual({
      files: ["testdata/interactor.cc", "testdata/testlib.h"],
      compileArgs: ["g++", "-O2", "-std=gnu++17", "-o", "interactor", "testdata/interactor.cc"],
      executeArgs: ["./interactor"],
      protocol: "testlib",
    });
    expect(problem.cases.map((c) => [c.input, c.answer, c.group])).toEqual([
      ["testdata/1.in", null, "1"],
      ["testdata/2.in", null, "1"],
    ]);
    expect(configFor(problem).subtasks).toEqual([{ score: 100, cases: [0, 1] }]);
    expect(problem.notes.join("\n")).toContain("Hydro also gives it the case's answer file, third");
  });

  test("filename is file I/O; a hustoj checker is called as HUSTOJ calls it", () => {
    const problem = readOne({
      ...base,
      "testdata/config.yaml": "filename: rooms\nchecker_type: hustoj\nchecker: spj.c\n",
      "testdata/spj.c": "/* exit 0 when the counts match */\nint main(void) { return 0; }\n",
      ...data("1.in", "1.out"),
    });
    expect(problem).toMatchObject({ fileInput: "rooms.in", fileOutput: "rooms.out", compare: null });
    expect(problem.checker).toEqual({
      files: ["testdata/spj.c", "testdata/testlib.h"],
      compileArgs: ["gcc", "-O2", "-std=gnu11", "-o", "checker", "testdata/spj.c", "-lm"],
      executeArgs: ["./checker"],
      protocol: "hustoj",
    });
    expect(configFor(problem).caseDefault).toMatchObject({ fileInput: "rooms.in", fileOutput: "rooms.out" });
    expect(problem.notes).toContain("no time limit given: Hydro's default, 1000 ms");
    expect(problem.notes).toContain("no memory limit given: Hydro's default, 256 MB");
  });

  test("a kattis checker is an output validator; default compares tokens, with a note", () => {
    const kattis = readOne({
      ...base,
      "testdata/config.yaml": "checker_type: kattis\nchecker: validate.py\n",
      "testdata/validate.py": "import sys\nsys.exit(42)\n",
      ...data("1.in", "1.out"),
    });
    expect(kattis.checker).toEqual({
      files: ["testdata/validate.py", "testdata/testlib.h"],
      compileArgs: [],
      executeArgs: ["python3", "testdata/validate.py"],
      protocol: "kattis",
      flags: [],
    });
    const plain = readOne({ ...base, ...data("1.in", "1.out") });
    expect(plain.compare).toEqual({ compare: "whitespace" });
    expect(plain.notes.join("\n")).toContain("checker_type default: output compared token by token");
  });
});

describe("packages we cannot honour are refused, naming the file and the field", () => {
  const base = { "problem.yaml": "title: T\n", "problem.md": "T\n", ...data("1.in", "1.out", "2.in", "2.out") };
  const withConfig = (config: string, more: Record<string, string> = {}) =>
    refusal({ ...base, "testdata/config.yaml": config, ...more });

  test.each([
    [
      "subtasks:\n  - cases: [{ input: 1.in, output: 1.out }]\n  - cases: [{ input: 3.in, output: 3.out }]\n",
      "testdata/config.yaml: subtasks[1].cases[0].input 3.in is not in testdata/",
    ],
    ["subtasks:\n  - score: 50\n", "testdata/config.yaml: subtasks[0] has no cases"],
    ["subtasks:\n  - cases: [{ input: 1.in }]\n", "testdata/config.yaml: subtasks[0].cases[0] has no output"],
    ["cases:\n  - { output: 1.out }\n", "testdata/config.yaml: cases[0] has no input"],
    ["subtasks:\n  - cases: [{ input: 1.in, output: 9.out }]\n", "cases[0].output 9.out is not in testdata/"],
    ["checker_type: lemon\nchecker: chk.cc\n", "checker_type lemon is not supported (default, strict, testlib, "],
    ["checker_type: testlib\n", "testdata/config.yaml: checker_type testlib needs a checker"],
    ["checker_type: testlib\nchecker: ncmp\n", "checker ncmp names one of Hydro's built-in checkers"],
    ["checker_type: testlib\nchecker: chk.cc\n", "testdata/config.yaml: checker chk.cc is not in testdata/"],
    ["type: submit_answer\n", "type submit_answer is not supported (answers submitted as files"],
    ["type: interactive\n", "testdata/config.yaml: type interactive needs an interactor"],
    ["user_extra_files: [grader.h]\n", "user_extra_files (grader.h), files given to the submission"],
    ["time: fast\n", 'testdata/config.yaml: time "fast" is not a time limit (1s, 500ms)'],
    ["subtasks:\n  - type: avg\n    cases: [{ input: 1.in, output: 1.out }]\n", 'subtasks[0].type "avg" is not'],
    [
      "subtasks:\n  - score: 2.5\n    cases: [{ input: 1.in, output: 1.out }]\n",
      "subtasks[0].score 2.5 is not a whole",
    ],
    ["subtasks: [\n", "testdata/config.yaml is not valid YAML ("],
    ["- 1\n- 2\n", "testdata/config.yaml is not a mapping"],
  ])("config.yaml %j", (config, message) => {
    expect(withConfig(config)).toContain(message);
  });

  test("a testlib checker without the package's testlib.h says where to put it", () => {
    expect(withConfig("checker_type: testlib\nchecker: chk.cc\n", { "testdata/chk.cc": CHECKER })).toBe(
      "package: testdata/config.yaml: the checker chk.cc includes testlib.h, which is not in the package " +
        "(Hydro's judge supplies its own; this one bundles none). To import it, put the testlib.h it was written " +
        "for in testdata/, beside chk.cc, zip the package again and upload it",
    );
  });
});
