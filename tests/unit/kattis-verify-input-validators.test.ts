import { describe, expect, test } from "bun:test";
import { type KattisVersion, verifyKattis } from "../helpers/kattis-verify";

// Our verifyproblem stand-in's input validator rule: problemtools' release reports "No input format validators
// found" in legacy and 2023-07-draft, so a package without one there has this finding, and one with one has none.
const UUID = "5d9c2f7e-1b3a-4c8d-9e0f-7a6b5c4d3e2f";
const PACKAGES: Record<KattisVersion, Record<string, string>> = {
  legacy: { "problem.yaml": "name: Sum\n", "problem_statement/problem.en.tex": "\\problemname{Sum}\n" },
  "2023-07-draft": {
    "problem.yaml": `problem_format_version: 2023-07-draft\nname: Sum\nuuid: ${UUID}\n`,
    "statement/problem.en.md": "Add.\n",
  },
  "2025-09": {
    "problem.yaml": `problem_format_version: 2025-09\nname: Sum\nuuid: ${UUID}\n`,
    "statement/problem.en.md": "Add.\n",
  },
};
const DATA = { "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n", "data/secret/1.in": "5 6\n" };
const findings = (version: KattisVersion, more: Record<string, string> = {}) => {
  const files = { ...PACKAGES[version], ...DATA, "data/secret/1.ans": "11\n", ...more };
  return verifyKattis(new Map(Object.entries(files).map(([p, text]) => [p, new TextEncoder().encode(text)])), version);
};

describe("verifyKattis: input validators", () => {
  test.each(["legacy", "2023-07-draft"] as const)("%s without one: the finding problemtools gives", (version) => {
    expect(findings(version)).toEqual(["no input validator in input_validators/"]);
    // A file that is no program of a language problemtools knows does not count.
    expect(findings(version, { "input_validators/README.md": "" })).toEqual([
      "no input validator in input_validators/",
    ]);
  });

  test.each([
    ["a Python file", "legacy", { "input_validators/validate.py": "" }],
    ["a folder", "2023-07-draft", { "input_validators/sum/sum.cc": "", "input_validators/sum/sum.h": "" }],
    ["a checktestdata script", "2023-07-draft", { "input_validators/sum.ctd": "" }],
    ["legacy's old folder name", "legacy", { "input_format_validators/validate.c": "" }],
  ] as const)("%s is one (%s)", (_, version, more) => {
    expect(findings(version, more)).toEqual([]);
  });

  test("2025-09 does not require one", () => {
    expect(findings("2025-09")).toEqual([]);
  });
});
