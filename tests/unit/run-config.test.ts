import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { BizError } from "../../src/core/errors";
import { RUN_SAMPLES_MAX, runConfigOf } from "../../src/modules/runs/run-config";

// The config a run is judged with (src/modules/runs/run-config.ts): what it keeps of the problem's and,
// above all, which of the version's files it names — the judge is handed those and nothing else.

const checker = { files: ["check.cpp"], compileArgs: ["g++", "-o", "check", "check.cpp"], executeArgs: ["./check"] };
const interactor = { files: ["inter.py"], executeArgs: ["python3", "inter.py"] };

function problem(categories: string[], extra: Record<string, unknown> = {}) {
  const cases = categories.map((category, i) => ({
    category,
    executeInputFile: `data/${i}.in`,
    executeOutputFile: `data/${i}.out`,
    time: `${i + 1}s`,
  }));
  const files = new Set(["config.json", "check.cpp", "inter.py", "grader.h"]);
  for (const i of categories.keys()) for (const ext of ["in", "out"]) files.add(`data/${i}.${ext}`);
  const raw = {
    languages: [
      {
        name: "c",
        preset: "c",
        compileFiles: ["main.c", "grader.h"],
        cases,
        subtasks: [{ score: 100, cases: categories.map((_, i) => i) }],
        ...extra,
      },
      { name: "python3", preset: "python3", cases },
    ],
  };
  return { raw, files };
}

describe("on the user's input", () => {
  test("one case: the first case's limits and run, its input path for the user's input, nothing compared", () => {
    const { raw, files } = problem(["secret", "sample"], { checker });
    const made = runConfigOf(raw, files, "c", "input");
    expect(made.config.languages).toHaveLength(1);
    const [language] = made.config.languages;
    expect(language).toMatchObject({ name: "c", preset: "c", compileFiles: ["main.c", "grader.h"], scoring: "all" });
    expect(language.subtasks).toBeUndefined();
    expect(language.cases).toEqual([
      expect.objectContaining({ time: "1s", executeInputFile: "data/0.in", compare: "none", checker: null }),
    ]);
    expect(made.inputPath).toBe("data/0.in");
    expect(made.sources).toEqual([null]);
    // The problem's own compile file; no case data (the user's input stands at data/0.in), no checker.
    expect(made.versionPaths).toEqual(["grader.h"]);
  });

  test("an interactive first case keeps its interactor (and its files), reading the user's input", () => {
    const { raw, files } = problem(["secret"], { caseDefault: { interactor } });
    const made = runConfigOf(raw, files, "c", "input");
    expect(made.config.languages[0].cases![0].interactor).toEqual(interactor);
    expect(made.versionPaths).toEqual(["grader.h", "inter.py"]);
  });

  test("an output-only problem has nothing to run", () => {
    const raw = { languages: [{ name: "out", preset: "output-only", cases: [{ submittedOutput: "1.out" }] }] };
    expect(() => runConfigOf(raw, new Set(["config.json", "case.out"]), "out", "input")).toThrow(BizError);
  });

  test("a language the config lacks is refused", () => {
    const { raw, files } = problem(["sample"]);
    expect(() => runConfigOf(raw, files, "java", "input")).toThrow("no language");
  });
});

describe("on the samples", () => {
  test("the public cases in order with their data and checker, the first ten at most", () => {
    const categories = ["sample", "secret", ...Array.from({ length: 12 }, () => "pretest")];
    const { raw, files } = problem(categories, { checker });
    const made = runConfigOf(raw, files, "c", "samples");
    expect(made.sources).toEqual([0, ...Array.from({ length: RUN_SAMPLES_MAX - 1 }, (_, i) => i + 2)]);
    expect(made.config.languages[0].cases!.map((c) => c.checker)).toEqual(made.sources.map(() => checker));
    expect(made.versionPaths).not.toContain("data/1.in");
    expect(made.versionPaths).toContain("check.cpp");
    expect(made.inputPath).toBeNull();
  });

  test("a problem without a public case has nothing to run on", () => {
    const { raw, files } = problem(["secret", "hidden"]);
    expect(() => runConfigOf(raw, files, "python3", "samples")).toThrow("no sample or pretest case");
  });

  test("property: no file of a non-public case is named, in either mode, whatever the categories", () => {
    const category = fc.constantFrom("sample", "pretest", "secret", "hidden", "final");
    fc.assert(
      fc.property(fc.array(category, { minLength: 1, maxLength: 15 }), fc.boolean(), (categories, samples) => {
        const { raw, files } = problem(categories);
        const publicOnes = categories.some((c) => c === "sample" || c === "pretest");
        if (samples && !publicOnes) return;
        const made = runConfigOf(raw, files, "c", samples ? "samples" : "input");
        for (const [i, c] of categories.entries()) {
          if (c === "sample" || c === "pretest") continue;
          expect(made.versionPaths).not.toContain(`data/${i}.in`);
          expect(made.versionPaths).not.toContain(`data/${i}.out`);
        }
        for (const source of made.sources)
          if (source !== null) expect(["sample", "pretest"]).toContain(categories[source]);
      }),
      { numRuns: 200 },
    );
  });
});
