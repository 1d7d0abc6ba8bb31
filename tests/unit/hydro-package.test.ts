import { describe, expect, test } from "bun:test";
import { isHydro, readHydro } from "../../src/modules/problem-packages/hydro/hydro-package";
import { linkAttachments } from "../../src/modules/problem-packages/problem-packages.service";
import { configFor, data, filesOf, readOne, refusal } from "../helpers/hydro-packages";

// Hydro problem packages of our own, laid out as Hydro's export writes them and its import reads them.

const CHECKER = `#include "testlib.h"
// Rooms reachable from the entrance: the count must match.
int main(int argc, char* argv[]) {
  registerTestlibCmd(argc, argv);
  long long want = ans.readLong(), got = ouf.readLong();
  if (want != got) quitf(_wa, "expected %lld rooms, found %lld", want, got);
  quitf(_ok, "%lld rooms", got);
}
`;
const ROOMS: Record<string, string> = {
  "problem.yaml": "pid: P1042\nowner: 7\ntitle: ' Reachable rooms '\ntag:\n  - 图论\n  - BFS\nnSubmit: 12\n",
  "problem_en.md": "The museum has *n* rooms.\n\n![floor plan](file://figure.png)\n",
  "problem_zh.md": "博物馆有 *n* 个房间。\n\n![平面图](file://figure.png)\n",
  "testdata/config.yaml": `type: default
time: 1s
memory: 256m
checker_type: testlib
checker: chk.cc
subtasks:
  - id: 1
    type: sum
    score: 20
    cases:
      - { input: 1.in, output: 1.out }
      - { input: 2.in, output: 2.out }
      - { input: 3.in, output: 3.out }
  - id: 2
    score: 30
    cases:
      - { input: 4.in, output: 4.out }
      - { input: 5.in, output: 5.out }
  - id: 3
    type: min
    score: 50
    if: [2]
    cases:
      - { input: 6.in, output: 6.out }
`,
  "testdata/chk.cc": CHECKER,
  "testdata/testlib.h": "// Our stand-in for testlib.h: the reader only checks that it is there.\n",
  ...data("1.in", "1.out", "2.in", "2.out", "3.in", "3.out", "4.in", "4.out", "5.in", "5.out", "6.in", "6.out"),
  "additional_file/figure.png": "\x89PNG our own bytes",
  "std/rooms.cpp":
    '#include <cstdio>\nint main() { long long n; std::scanf("%lld", &n); std::printf("%lld\\n", n); }\n',
};

describe("what counts as a Hydro package", () => {
  test("problem.yaml beside testdata/ or a problem*.md, at the top or in every top folder that has one", () => {
    expect(isHydro(filesOf(ROOMS))).toBe(true);
    expect(isHydro(filesOf({ "problem.yaml": "title: A\n", "problem_en.md": "A\n" }))).toBe(true);
    expect(isHydro(filesOf({ "problem.yaml": "title: A\n", "problem.md": "A\n" }))).toBe(true);
    const two = { "1/problem.yaml": "title: A\n", "1/problem.md": "A\n", "2/problem.yaml": "title: B\n" };
    expect(isHydro(filesOf({ ...two, "2/testdata/1.in": "1\n" }))).toBe(true);
    expect(isHydro(filesOf(two))).toBe(false);
  });

  test("not a Kattis package (data/ and no testdata/), nor problem.yaml alone, nor Polygon's problem.xml", () => {
    expect(isHydro(filesOf({ "problem.yaml": "name: A\n", "data/secret/1.in": "1\n" }))).toBe(false);
    expect(isHydro(filesOf({ "problem.yaml": "name: A\n" }))).toBe(false);
    expect(isHydro(filesOf({ "problem.xml": "<problem/>", "problem.md": "A\n" }))).toBe(false);
    expect(isHydro(filesOf({ "1/problem.yaml": "title: A\n", "1/data/1.in": "1\n", "1/problem.md": "A\n" }))).toBe(
      false,
    );
  });
});

describe("a problem with statements in two languages, three subtasks and a testlib checker", () => {
  const problem = readOne(ROOMS);

  test("the title, the English statement shown, both listed with their own languages, the figure attached", () => {
    expect(problem.format).toBe("hydro");
    expect(problem.title).toBe("Reachable rooms");
    expect(problem.content).toBe(ROOMS["problem_en.md"]);
    expect(problem.statements).toEqual([
      { path: "problem_en.md", language: "en" },
      { path: "problem_zh.md", language: "zh" },
    ]);
    expect(problem.attachments).toEqual([{ path: "additional_file/figure.png", name: "figure.png" }]);
    expect([...problem.files.keys()].sort()).toEqual(Object.keys(ROOMS).sort());
  });

  test("a sum subtask's cases score their shares, min subtasks are groups, `if` a dependency", () => {
    const secret = { category: "secret" as const };
    expect(problem.cases).toEqual([
      { input: "testdata/1.in", answer: "testdata/1.out", ...secret, group: null, score: 6 },
      { input: "testdata/2.in", answer: "testdata/2.out", ...secret, group: null, score: 7 },
      { input: "testdata/3.in", answer: "testdata/3.out", ...secret, group: null, score: 7 },
      { input: "testdata/4.in", answer: "testdata/4.out", ...secret, group: "2" },
      { input: "testdata/5.in", answer: "testdata/5.out", ...secret, group: "2" },
      { input: "testdata/6.in", answer: "testdata/6.out", ...secret, group: "3" },
    ]);
    expect(problem.groupScores).toEqual(
      new Map([
        ["2", 30],
        ["3", 50],
      ]),
    );
    expect(problem.groupDependsOn).toEqual(new Map([["3", ["2"]]]));
    const config = configFor(problem);
    expect(config.cases!.map((c) => c.score)).toEqual([6, 7, 7, 0, 0, 0]);
    expect(config.subtasks).toEqual([
      { score: 30, cases: [3, 4] },
      { score: 50, cases: [5], dependsOn: [0] },
    ]);
    expect(config.caseDefault).toMatchObject({ time: "1000ms", memory: "256m" });
  });

  test("the checker is built from its source with the package's testlib.h beside it", () => {
    expect(problem.compare).toBeNull();
    expect(problem.interactor).toBeNull();
    expect(problem.checker).toEqual({
      files: ["testdata/chk.cc", "testdata/testlib.h"],
      compileArgs: ["g++", "-O2", "-std=gnu++17", "-o", "checker", "testdata/chk.cc"],
      executeArgs: ["./checker"],
      protocol: "testlib",
    });
  });

  test("std/ is a reference solution expected to be accepted; what is dropped is noted", () => {
    expect(problem.submissions).toEqual([
      {
        path: "std/rooms.cpp",
        files: ["std/rooms.cpp"],
        expected: "std",
        rules: [{ permitted: ["accepted"], required: [], source: "std/" }],
        language: "cpp",
        skipped: null,
      },
    ]);
    expect(problem.notes).toEqual([
      "problem.yaml: tags not kept (a problem here has none): 图论, BFS",
      "problem.yaml: pid P1042 not kept (the problem gets its own url)",
      "problem.yaml: owner, nSubmit not kept",
      "problem_zh.md kept among the files (not shown)",
    ]);
  });
});

describe("statements and the files they link", () => {
  test("additional_file/ by name, linked encoded or not; a labelled statement before problem.md; PDFs served", () => {
    const problem = readOne({
      "problem.yaml": "title: Plans\n",
      "problem.md": "An older statement.\n",
      "problem_zh.md":
        "![平面图](file://floor%20plan.png) ![门](file://door.png) [表](file://tables.pdf?noDisposition=1)\n",
      "problem_en.pdf": "%PDF our own",
      "additional_file/floor plan.png": "png of ours",
      "additional_file/door.png": "png of ours",
      "additional_file/tables.pdf": "%PDF our own",
      "additional_file/old/unused.png": "png of ours",
      ...data("1.in", "1.out"),
    });
    expect(problem.statements).toEqual([
      { path: "problem.md", language: null },
      { path: "problem_zh.md", language: "zh" },
    ]);
    expect(problem.content).toStartWith("![平面图](file://floor%20plan.png)");
    expect(problem.attachments).toEqual([
      { path: "additional_file/door.png", name: "door.png" },
      { path: "additional_file/floor plan.png", name: "floor plan.png" },
      { path: "additional_file/tables.pdf", name: "tables.pdf" },
      { path: "problem_en.pdf", name: "problem_en.pdf" },
    ]);
    expect(linkAttachments(problem.content, problem.attachments, "d1/problems/p1")).toStartWith(
      "![平面图](/api/v1/domains/d1/problems/p1/attachments/floor%20plan.png) " +
        "![门](/api/v1/domains/d1/problems/p1/attachments/door.png)",
    );
    expect(problem.notes).toEqual([
      "checker_type default: output compared token by token " +
        "(Hydro compares lines, ignoring only spaces at their ends and blank lines at the end)",
      "problem.md kept among the files (not shown)",
      "problem_en.pdf: a PDF statement is not shown as text; it is served as an attachment",
      "no time limit given: Hydro's default, 1000 ms",
      "no memory limit given: Hydro's default, 256 MB",
      "additional_file/'s subfolders are not attachments (Hydro takes only the folder's own files)",
    ]);
  });
});

describe("a Hydro export of several problems", () => {
  const problems = readHydro(
    filesOf({
      "1/problem.yaml": "pid: P1000\ntitle: A + B\n",
      "1/problem.md": "Add two numbers.\n",
      "1/testdata/1.in": "1 2\n",
      "1/testdata/1.out": "3\n",
      "10/problem.yaml": "title: Echo\n",
      "10/problem_zh.md": "原样输出。\n",
      "10/testdata/config.yaml": "time: 500ms\nmemory: 64m\nchecker_type: strict\n",
      "10/testdata/echo1.in": "hello\n",
      "10/testdata/echo1.ans": "hello\n",
      "2/problem.yaml": "title: Max\n",
      "2/problem.md": "The larger one.\n",
      "2/testdata/1.in": "3 4\n",
      "2/testdata/1.out": "4\n",
      "notes/readme.txt": "exported from our Hydro\n",
    }),
  );

  test("each folder with problem.yaml is a problem, in Hydro's order, its files by their paths in it", () => {
    expect(problems.map((p) => p.title)).toEqual(["A + B", "Max", "Echo"]);
    expect([...problems[0].files.keys()].sort()).toEqual([
      "problem.md",
      "problem.yaml",
      "testdata/1.in",
      "testdata/1.out",
    ]);
    expect(problems[0].statements).toEqual([{ path: "problem.md", language: null }]);
    expect(problems[2].statements).toEqual([{ path: "problem_zh.md", language: "zh" }]);
    expect(problems[2].content).toBe("原样输出。\n");
    expect(problems[2].cases).toEqual([
      { input: "testdata/echo1.in", answer: "testdata/echo1.ans", category: "secret", group: null, score: 100 },
    ]);
    expect(problems[2]).toMatchObject({ timeMs: 500, memoryMb: 64, compare: { compare: "exact" } });
  });

  test("a folder without problem.yaml is skipped with a note, as Hydro skips it", () => {
    expect(problems[0].notes).toContain("notes/: no problem.yaml, skipped (as Hydro skips)");
  });

  test("a refusal names the problem's folder", () => {
    const message = refusal({ "1/problem.yaml": "title: A\n", "1/problem.md": "A\n", "1/testdata/1.in": "1\n" });
    expect(message).toBe("package: 1/testdata/: no test case (config.yaml lists none, none named like 1.in)");
  });
});

describe("problem.yaml we cannot honour", () => {
  const base = { "problem.md": "T\n", ...data("1.in", "1.out") };

  test("without a title, with one that is not text, or not YAML at all; a legacy config.ini", () => {
    expect(refusal({ ...base, "problem.yaml": "pid: P1\n" })).toBe(
      "package: problem.yaml: title is missing (Hydro requires one)",
    );
    expect(refusal({ ...base, "problem.yaml": "title: 42\n" })).toBe(
      "package: problem.yaml: title is not text (Hydro requires one)",
    );
    expect(refusal({ ...base, "problem.yaml": "title: [unclosed\n" })).toStartWith(
      "package: problem.yaml is not valid YAML (",
    );
    expect(refusal({ ...base, "problem.yaml": "title: T\n", "testdata/config.ini": "1\n1.in|1.out|1|100\n" })).toBe(
      "package: testdata/config.ini: Hydro's legacy config is not read; write it as config.yaml",
    );
  });
});
