import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { resolveLanguages, validateConfigJson } from "../../src/core/config-model/config-json";
import { checkSelected, globMatch } from "../../src/core/config-model/config-stages";
import { linterPoints, doneReport, counted } from "../../src/judge/stages/deduct";
import { cpplintFilter } from "../../src/judge/stages/linters";
import { withinScore } from "../../src/modules/scoreboard/board-store";
import { STAGE_COMMENTS_MAX } from "../../src/core/judge-protocol";

// config.json's `stages` (docs/config-reference.md "Stages"): what the upload refuses, with the path of the
// field, and how findings become a deduction.
const config = (stages: unknown[], extra: object = {}) => ({
  languages: [
    { name: "cpp", preset: "cpp", cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out" }], stages },
  ],
  ...extra,
});
const refusal = (raw: unknown, files?: string[]) => {
  try {
    validateConfigJson(raw, files ? { archiveFiles: files } : {});
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe("stages in config.json", () => {
  test("a course's stages are read with their defaults, snake_case keys too", () => {
    const raw = config([
      { name: "goto", kind: "keywords", patterns: [{ pattern: "goto", deduction: 5 }], max_deduction: 20 },
      { name: "tidy", kind: "clang-tidy", checks: ["bugprone-*"], when: "always", at: "after-tests", time: "5s" },
    ]);
    const [language] = resolveLanguages(validateConfigJson(raw));
    expect(language.stages).toMatchObject([
      { name: "goto", maxDeduction: 20, when: "if-compiles", at: "before-tests" },
      { name: "tidy", maxDeduction: null, when: "always", at: "after-tests", time: "5s" },
    ]);
  });

  test("languageDefault's stages stand for a language that has none", () => {
    const raw = {
      languageDefault: { stages: [{ name: "goto", kind: "keywords", patterns: [{ pattern: "goto", forbid: true }] }] },
      languages: [{ name: "c", preset: "c", cases: [{}] }],
    };
    expect(resolveLanguages(validateConfigJson(raw))[0].stages.map((s) => s.name)).toEqual(["goto"]);
  });

  test.each([
    [[{ name: "x", kind: "keywords" }], 'a keywords stage needs "patterns"'],
    [[{ name: "x", kind: "keywords", patterns: [{ pattern: "a", regex: "b", deduction: 1 }] }], "exactly one of"],
    [[{ name: "x", kind: "keywords", patterns: [{ regex: "(a", deduction: 1 }] }], "/stages/0/patterns/0/regex"],
    [[{ name: "x", kind: "keywords", patterns: [{ pattern: "goto" }] }], 'give a "deduction", or "forbid"'],
    [[{ name: "x", kind: "keywords", patterns: [{ pattern: "a", deduction: 1 }], checks: ["*"] }], '"checks"'],
    [[{ name: "x", kind: "clang-tidy" }], 'needs "checks"'],
    [[{ name: "x", kind: "cpplint", command: ["true"] }], "/stages/0/command: a cpplint stage has no"],
    [[{ name: "x", kind: "command" }], 'needs "command"'],
    [[{ name: "x", kind: "pylint" }], "/languages/0/stages/0/kind"],
    [[{ name: "x", kind: "cppcheck", deduction: -1 }], "/stages/0/deduction"],
    [[{ name: "x", kind: "cppcheck", colour: "red" }], "/stages/0/colour: unknown field"],
    [
      [
        { name: "same", kind: "cppcheck" },
        { name: "same", kind: "cpplint" },
      ],
      'two stages are named "same"',
    ],
  ])("%j is refused: %s", (stages, said) => {
    expect(refusal(config(stages))).toContain(said);
  });

  test("a command stage's files must be in the archive", () => {
    const raw = config([{ name: "style", kind: "command", command: ["python3", "style.py"], files: ["style.py"] }]);
    expect(refusal(raw, ["config.json", "1.in", "1.out"])).toContain('"style.py" is not in the config archive');
    expect(refusal(raw, ["config.json", "1.in", "1.out", "style.py"])).toBeNull();
  });
});

describe("checks and deductions", () => {
  test("globs: `*` is any run, everything else literal; `-` leaves out", () => {
    expect(globMatch("bugprone-*", "bugprone-integer-division")).toBe(true);
    expect(globMatch("bugprone-*", "readability-braces")).toBe(false);
    expect(globMatch("whitespace/line_length", "whitespace/line_length")).toBe(true);
    expect(globMatch("a.b", "axb")).toBe(false);
    expect(checkSelected(["bugprone-*", "-bugprone-narrowing-*"], "bugprone-narrowing-conversions")).toBe(false);
    expect(checkSelected(["bugprone-*", "-bugprone-narrowing-*"], "bugprone-integer-division")).toBe(true);
    expect(checkSelected(undefined, "anything")).toBe(true);
  });

  test("a finding's points: the first matching deductions entry, else deduction, else 1", () => {
    const [stage] = resolveLanguages(
      validateConfigJson(
        config([
          {
            name: "tidy",
            kind: "clang-tidy",
            checks: ["*"],
            deduction: 2,
            deductions: [
              { check: "bugprone-integer-*", points: 7 },
              { check: "bugprone-*", points: 3 },
            ],
          },
        ]),
      ),
    )[0].stages;
    expect(linterPoints(stage, "bugprone-integer-division")).toBe(7);
    expect(linterPoints(stage, "bugprone-narrowing-conversions")).toBe(3);
    expect(linterPoints(stage, "readability-magic-numbers")).toBe(2);
    expect(linterPoints({ ...stage, deduction: undefined, deductions: undefined }, "x")).toBe(1);
  });

  test("only the submission's files count; the cap holds; the comments are capped in number", () => {
    const stage = {
      name: "lint",
      kind: "cppcheck" as const,
      maxDeduction: 10,
      when: "always" as const,
      at: "before-tests" as const,
    };
    const findings = [
      { file: "main.cpp", line: 3, check: "unusedVariable", message: "x is unused" },
      { file: "./main.cpp", line: 4, check: "unusedVariable", message: "y is unused" },
      { file: "/usr/include/stdio.h", line: 9, check: "unusedVariable", message: "not the student's" },
      { file: "testlib.h", line: 9, check: "unusedVariable", message: "the problem's header" },
    ];
    expect(counted(findings, new Set(["main.cpp"]), ["unused*"]).map((f) => f.line)).toEqual([3, 4]);
    const many = Array.from({ length: 500 }, (_, i) => ({
      file: "main.cpp",
      line: i + 1,
      check: "c",
      message: "m",
      points: 1,
    }));
    const report = doneReport(stage, many);
    expect(report).toMatchObject({ state: "done", deduction: 10, forbidden: false });
    expect(report.comments).toHaveLength(STAGE_COMMENTS_MAX);
    expect(report.message).toContain("500 findings");
    expect(report.message).toContain("before the cap of 10");
  });

  test("any findings: the deduction is the capped sum, never negative, and comments are sorted by place", () => {
    const finding = fc.record({
      file: fc.constantFrom("main.cpp", "util.h", "b.cpp"),
      line: fc.integer({ min: 0, max: 10_000 }),
      check: fc.string({ maxLength: 20 }),
      message: fc.string({ maxLength: 2000 }),
      points: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 300 }), fc.option(fc.integer({ min: 0, max: 5000 })), (all, cap) => {
        const stage = {
          name: "s",
          kind: "command" as const,
          maxDeduction: cap,
          when: "always" as const,
          at: "before-tests" as const,
        };
        const report = doneReport(stage, all);
        const sum = all.reduce((n, f) => n + f.points, 0);
        expect(report.deduction).toBe(cap === null ? sum : Math.min(sum, cap));
        expect(report.comments.length).toBe(Math.min(all.length, STAGE_COMMENTS_MAX));
        for (const c of report.comments) expect(c.message.length).toBeLessThanOrEqual(500);
        for (let i = 1; i < report.comments.length; i++) {
          const [a, b] = [report.comments[i - 1], report.comments[i]];
          expect(a.file.localeCompare(b.file) < 0 || (a.file === b.file && a.line <= b.line)).toBe(true);
        }
      }),
    );
  });

  test("a tool's points become whole points within the record's range", () => {
    const stage = {
      name: "s",
      kind: "command" as const,
      maxDeduction: null,
      when: "always" as const,
      at: "before-tests" as const,
    };
    const at = { file: "main.c", line: 1, check: "", message: "m" };
    const report = doneReport(stage, [
      { ...at, points: 0.4 },
      { ...at, points: 2.6 },
      { ...at, points: 5e9 },
      { ...at, points: Number.NaN },
    ]);
    expect(report.comments.map((c) => c.points)).toEqual([0, 3, 1_000_000, 0]);
    expect(report.deduction).toBe(1_000_000);
  });

  test("cpplint's filter from the stage's globs", () => {
    expect(cpplintFilter(["whitespace/line_length"])).toBe("-,+whitespace/line_length");
    expect(cpplintFilter(["whitespace/*", "-whitespace/tab"])).toBe("-,+whitespace/,-whitespace/tab");
    expect(cpplintFilter(undefined)).toBe("");
  });
});

describe("an IOI board counts what a record kept after its stages", () => {
  test("deductions come off the last subtasks first; a forbidden record keeps nothing", () => {
    expect(withinScore([30, 30, 40], 100)).toEqual([30, 30, 40]);
    expect(withinScore([30, 30, 40], 75)).toEqual([30, 30, 15]);
    expect(withinScore([30, 30, 40], 25)).toEqual([25, 0, 0]);
    expect(withinScore([30, 30, 40], 0)).toEqual([0, 0, 0]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 8 }),
        fc.integer({ min: -10, max: 900 }),
        (parts, score) => {
          const kept = withinScore(parts, score);
          const sum = kept.reduce((a, b) => a + b, 0);
          expect(sum).toBe(
            Math.min(
              parts.reduce((a, b) => a + b, 0),
              Math.max(0, score),
            ),
          );
          for (const [i, k] of kept.entries()) expect(k).toBeLessThanOrEqual(parts[i]);
        },
      ),
    );
  });
});
