import { describe, expect, test } from "bun:test";
import { type KattisVersion, verifyKattis } from "../helpers/kattis-verify";
import type { Expected } from "../helpers/kattis-verify-content";

// The rules of our verifyproblem stand-in that look into files (tests/helpers/kattis-verify-content.ts), each
// from a fault problemtools found in an export that the layout rules (kattis-verify.test.ts) had passed.
type Files = Record<string, string>;
const findings = (files: Files, version: KattisVersion, expected: Expected = {}) =>
  verifyKattis(
    new Map(Object.entries(files).map(([path, text]) => [path, new TextEncoder().encode(text)])),
    version,
    expected,
  );

const UUID = "5d9c2f7e-1b3a-4c8d-9e0f-7a6b5c4d3e2f";
const CURRENT: Files = {
  "problem.yaml": `problem_format_version: 2023-07-draft\nname: Sum\nuuid: ${UUID}\nlimits:\n  time_limit: 2\n`,
  "statement/problem.en.tex": "\\problemname{Sum}\nAdd.\n\n\\includegraphics[width=5cm]{figure}\n",
  "statement/figure.png": "png",
  "data/sample/1.in": "1 2\n",
  "data/sample/1.ans": "3\n",
  "data/secret/1.in": "5 6\n",
  "data/secret/1.ans": "",
  "input_validators/sum.py": "import sys\nsys.exit(42)\n",
};
const LEGACY: Files = {
  "problem.yaml": "name: Sum\n",
  ".timelimit": "2\n",
  "problem_statement/problem.zh.tex": "\\problemname{两数之和}\n\\includegraphics{__1.png}\n",
  "problem_statement/__1.png": "png",
  "data/sample/1.in": "1 2\n",
  "data/sample/1.ans": "3\n",
  "data/secret/1.in": "5 6\n",
  "data/secret/1.ans": "11\n",
  "input_validators/sum.py": "import sys\nsys.exit(42)\n",
};

describe("verifyKattis's content rules", () => {
  test("find nothing in a good package of each version, its time limit as expected", () => {
    expect(findings(CURRENT, "2023-07-draft", { timeLimit: 2 })).toEqual([]);
    expect(findings(LEGACY, "legacy", { timeLimit: 2 })).toEqual([]);
  });

  test("an image LaTeX cannot load: Markdown's angle brackets, a file not beside the statement", () => {
    const bracketed = { ...LEGACY, "problem_statement/problem.zh.tex": "\\includegraphics{<__1.png>}\n" };
    expect(findings(bracketed, "legacy")).toContain(
      "problem_statement/problem.zh.tex: \\includegraphics{<__1.png>} is no image beside it",
    );
    const missing = { ...CURRENT, "statement/problem.en.tex": "\\problemname{Sum}\n\\includegraphics{other}\n" };
    expect(findings(missing, "2023-07-draft")).toContain(
      "statement/problem.en.tex: \\includegraphics{other} is no image beside it",
    );
  });

  test("data without a final newline, or with a carriage return, as verifyproblem warns", () => {
    const files = { ...CURRENT, "data/sample/1.in": "1 2", "data/secret/1.ans": "11\r\n" };
    expect(findings(files, "2023-07-draft")).toEqual([
      "warning: data/sample/1.in does not end with a newline",
      "warning: data/secret/1.ans has non-standard line breaks",
    ]);
  });

  test("an empty or binary file is no text to end", () => {
    const binary = new Map(Object.entries(CURRENT).map(([path, text]) => [path, new TextEncoder().encode(text)]));
    binary.set("data/secret/1.in", new Uint8Array([0xff, 0xfe, 0x00]));
    expect(verifyKattis(binary, "2023-07-draft")).toEqual([]);
  });

  test("the time limit missing, or another, where the version keeps it", () => {
    const noLimit = { ...CURRENT, "problem.yaml": CURRENT["problem.yaml"].replace("limits:\n  time_limit: 2\n", "") };
    expect(findings(noLimit, "2023-07-draft", { timeLimit: 1 })).toEqual([
      "time limit: limits.time_limit says none, not 1",
    ]);
    const { ".timelimit": _, ...noFile } = LEGACY;
    expect(findings(noFile, "legacy", { timeLimit: 1 })).toEqual(["time limit: .timelimit says none, not 1"]);
    expect(findings(LEGACY, "legacy", { timeLimit: null })).toEqual(["time limit: .timelimit says 2, not none"]);
  });
});
