import { describe, expect, test } from "bun:test";
import { BizError } from "../../src/core/errors";
import { parseConfigJson, resolveLanguages, serializeConfigJson } from "../../src/core/config-model/config-json";

const CHECKER = {
  files: ["checker.cpp", "testlib.h"],
  compileArgs: ["g++", "-O2", "-o", "checker", "checker.cpp"],
  executeArgs: ["./checker"],
};
const ARCHIVE = ["config.json", "checker.cpp", "testlib.h", "1.in", "1.out", "case.in", "case.out"];
const language = (fields: object = {}) => ({
  name: "c",
  compileFiles: ["main.c"],
  compileArgs: ["gcc", "main.c"],
  cases: [{}, {}, {}],
  ...fields,
});
const parsed = (config: object, archiveFiles?: string[]) => parseConfigJson(JSON.stringify(config), { archiveFiles });
const resolved = (config: object) => resolveLanguages(parsed(config))[0];

function refusal(config: object, archiveFiles?: string[]): string {
  try {
    parsed(config, archiveFiles);
  } catch (error) {
    expect(error).toBeInstanceOf(BizError);
    expect((error as BizError).code).toBe("FileValidationError");
    return (error as BizError).message;
  }
  throw new Error("accepted an invalid config.json");
}

describe("how output is judged, level by level", () => {
  test("Horse's default stays: white space ignored; ignoreWhitespace false is exact", () => {
    expect(resolved({ languages: [language()] }).cases[0]).toMatchObject({
      compare: "whitespace",
      epsilon: null,
      checker: null,
      ignoreWhitespace: true,
    });
    expect(resolved({ languages: [language({ caseDefault: { ignoreWhitespace: false } })] }).cases[0]).toMatchObject({
      compare: "exact",
    });
  });

  test("the most specific level wins: case, caseDefault, language, languageDefault", () => {
    const c = resolved({
      languageDefault: { compare: "tokens-icase" },
      languages: [
        language({
          compare: "lines-unordered",
          caseDefault: { compare: "float", epsilon: 1e-6 },
          cases: [{ compare: "exact" }, {}, { epsilon: 1e-3 }],
        }),
      ],
    });
    expect(c.cases.map((x) => [x.compare, x.epsilon])).toEqual([
      ["exact", null],
      ["float", 1e-6],
      ["float", 1e-3],
    ]);
    expect(resolved({ languageDefault: { compare: "tokens-icase" }, languages: [language()] }).cases[0].compare).toBe(
      "tokens-icase",
    );
    expect(
      resolved({ languageDefault: { compare: "tokens-icase" }, languages: [language({ compare: "lines-unordered" })] })
        .cases[0].compare,
    ).toBe("lines-unordered");
  });

  test("compare wins over ignoreWhitespace at one level; a more specific ignoreWhitespace wins over a general compare", () => {
    expect(
      resolved({ languages: [language({ caseDefault: { ignoreWhitespace: false, compare: "tokens-icase" } })] })
        .cases[0].compare,
    ).toBe("tokens-icase");
    const c = resolved({
      languages: [language({ compare: "tokens-icase", cases: [{ ignoreWhitespace: false }, {}] })],
    });
    expect(c.cases.map((x) => x.compare)).toEqual(["exact", "tokens-icase"]);
  });

  test("a checker at the language judges every case but those that name a comparison", () => {
    const c = resolved({ languages: [language({ checker: CHECKER, cases: [{}, { compare: "exact" }] })] });
    expect(c.cases[0].checker).toEqual(CHECKER);
    expect(c.cases[1]).toMatchObject({ checker: null, compare: "exact" });
    // A checker beats compare at the same level.
    expect(
      resolved({ languages: [language({ caseDefault: { checker: CHECKER, compare: "exact" } })] }).cases[0].checker,
    ).toEqual(CHECKER);
  });
});

describe("subtasks", () => {
  test("resolved with their dependencies; scoring defaults to all; languageDefault gives them to a language", () => {
    const c = resolved({
      languages: [
        language({
          subtasks: [
            { score: 40, cases: [0, 1] },
            { score: 60, cases: [2], dependsOn: [0] },
          ],
        }),
      ],
    });
    expect(c.subtasks).toEqual([
      { score: 40, cases: [0, 1], dependsOn: [] },
      { score: 60, cases: [2], dependsOn: [0] },
    ]);
    expect(c.scoring).toBe("all");
    const d = resolved({
      languageDefault: { subtasks: [{ score: 100, cases: [0, 1, 2] }], scoring: "min" },
      languages: [language()],
    });
    expect(d).toMatchObject({ scoring: "min", subtasks: [{ score: 100, cases: [0, 1, 2] }] });
  });
});

describe("refused at upload with what and where", () => {
  test.each([
    [
      "an unknown comparison",
      { languages: [language({ cases: [{}, { compare: "fuzzy" }] })] },
      '/languages/0/cases/1/compare: unknown value "fuzzy" (one of "exact", "whitespace", "float", "tokens-icase", "lines-unordered", "none")',
    ],
    [
      "epsilon 0",
      { languages: [language({ compare: "float", epsilon: 0 })] },
      "/languages/0/epsilon: Expected number to be greater than 0",
    ],
    ["epsilon above 1", { languages: [language({ compare: "float", epsilon: 2 })] }, "/languages/0/epsilon"],
    [
      "epsilon as text",
      { languages: [language({ compare: "float", epsilon: "1e-6" })] },
      "/languages/0/epsilon: Expected number",
    ],
    [
      "epsilon without float",
      { languages: [language({ caseDefault: { epsilon: 1e-6 } })] },
      '/languages/0/caseDefault: "epsilon" applies only to "compare": "float", but this case is judged by "compare": "whitespace"',
    ],
    [
      "epsilon next to exact",
      { languages: [language({ cases: [{ compare: "exact", epsilon: 1e-6 }] })] },
      '/languages/0/cases/0: "epsilon" applies only',
    ],
    [
      "float without epsilon",
      { languages: [language({ cases: [{}, { compare: "float" }] })] },
      '/languages/0/cases/1: "compare": "float" needs an "epsilon"',
    ],
    [
      "a checker with no files",
      { languages: [language({ checker: { ...CHECKER, files: [] } })] },
      "/languages/0/checker/files",
    ],
    [
      "a checker with no command",
      { languages: [language({ checker: { ...CHECKER, executeArgs: [] } })] },
      "/languages/0/checker/executeArgs",
    ],
    [
      "a checker file outside the archive by path",
      { languages: [language({ checker: { ...CHECKER, files: ["../checker.cpp"] } })] },
      "/languages/0/checker/files/0",
    ],
    [
      "a case index out of range",
      { languages: [language({ subtasks: [{ score: 10, cases: [0, 3] }] })] },
      "/languages/0/subtasks/0/cases/1: case 3 does not exist (the language has 3 cases, 0 to 2)",
    ],
    [
      "a case in two subtasks",
      {
        languages: [
          language({
            subtasks: [
              { score: 10, cases: [0, 1] },
              { score: 10, cases: [1] },
            ],
          }),
        ],
      },
      "/languages/0/subtasks/1/cases/0: case 1 is already in subtask 0",
    ],
    [
      "a negative case index",
      { languages: [language({ subtasks: [{ score: 10, cases: [-1] }] })] },
      "/languages/0/subtasks/0/cases/0",
    ],
    [
      "a subtask without cases",
      { languages: [language({ subtasks: [{ score: 10, cases: [] }] })] },
      "/languages/0/subtasks/0/cases",
    ],
    [
      "a dependency out of range",
      { languages: [language({ subtasks: [{ score: 10, cases: [0], dependsOn: [4] }] })] },
      "/languages/0/subtasks/0/dependsOn/0: subtask 4 does not exist (there are 1)",
    ],
    [
      "a subtask depending on itself",
      {
        languages: [
          language({
            subtasks: [
              { score: 10, cases: [0] },
              { score: 10, cases: [1], dependsOn: [1] },
            ],
          }),
        ],
      },
      "/languages/0/subtasks/1/dependsOn/0: a subtask cannot depend on itself",
    ],
    [
      "a dependency cycle",
      {
        languages: [
          language({
            subtasks: [
              { score: 1, cases: [0], dependsOn: [2] },
              { score: 1, cases: [1], dependsOn: [0] },
              { score: 1, cases: [2], dependsOn: [1] },
            ],
          }),
        ],
      },
      "/languages/0/subtasks: subtasks 0 → 2 → 1 → 0 depend on each other in a cycle",
    ],
    [
      "an unknown scoring",
      { languages: [language({ scoring: "best" })] },
      '/languages/0/scoring: unknown value "best" (one of "all", "min")',
    ],
    [
      "languageDefault subtasks that do not fit a language",
      { languageDefault: { subtasks: [{ score: 1, cases: [5] }] }, languages: [language()] },
      '/languageDefault/subtasks/0/cases/0 (language "c"): case 5 does not exist',
    ],
  ])("%s", (_, config, message) => {
    expect(refusal(config, ARCHIVE)).toContain(message);
  });

  test("checker files must be in the config archive, wherever the checker is written", () => {
    expect(
      refusal(
        { languages: [language({ cases: [{}, { checker: { ...CHECKER, files: ["checker.cpp", "testlib.hpp"] } }] })] },
        ARCHIVE,
      ),
    ).toContain('/languages/0/cases/1/checker/files/1: "testlib.hpp" is not in the config archive');
    expect(
      refusal({ languageDefault: { caseDefault: { checker: CHECKER } }, languages: [language()] }, ["config.json"]),
    ).toContain('/languageDefault/caseDefault/checker/files/0: "checker.cpp" is not in the config archive');
    // "./" is the same file, as the judge finds it.
    expect(() =>
      parsed({ languages: [language({ checker: { ...CHECKER, files: ["./checker.cpp", "testlib.h"] } })] }, ARCHIVE),
    ).not.toThrow();
    // Without a file list (the judge reading a stored version) the files are not checked again.
    expect(() => parsed({ languages: [language({ checker: { ...CHECKER, files: ["gone.cpp"] } })] })).not.toThrow();
  });
});

describe("every file a case reads is in the version, or the upload is refused with its path", () => {
  const archive = (...files: string[]) => ["config.json", ...files];

  test("a missing input or expected output names the case and the field, wherever the name is written", () => {
    const cases = [{ executeInputFile: "1.in", executeOutputFile: "1.out" }, {}, { executeInputFile: "3.in" }];
    expect(refusal({ languages: [language({ cases })] }, archive("1.in", "1.out", "case.in", "case.out"))).toContain(
      '/languages/0/cases/2/executeInputFile: "3.in" is not in the config archive',
    );
    expect(refusal({ languages: [language({ cases: [{}] })] }, archive("case.in"))).toContain(
      '/languages/0/cases/0/executeOutputFile: "case.out" is not in the config archive',
    );
    const shared = { languageDefault: { cases: [{ executeInputFile: "./data/1.in", executeOutputFile: "x.out" }] } };
    expect(refusal({ ...shared, languages: [{ name: "c" }] }, archive("data/1.in"))).toContain(
      '/languageDefault/cases/0/executeOutputFile (language "c"): "x.out" is not in the config archive',
    );
    // "./" is the same file, as the judge finds it.
    expect(() => parsed({ ...shared, languages: [{ name: "c" }] }, archive("data/1.in", "x.out"))).not.toThrow();
  });

  test("an output-only case needs no input; an interactive case without a checker needs no expected output", () => {
    const outputOnly = { name: "answers", preset: "output-only", cases: [{ submittedOutput: "1.txt" }] };
    expect(() => parsed({ languages: [outputOnly] }, archive("case.out"))).not.toThrow();
    expect(refusal({ languages: [outputOnly] }, archive("case.in"))).toContain("/executeOutputFile");
    const interactor = { files: ["interactor.cpp"], executeArgs: ["./interactor"] };
    const interactive = language({ cases: [{ interactor }] });
    expect(() => parsed({ languages: [interactive] }, archive("interactor.cpp", "case.in"))).not.toThrow();
    const checked = language({ cases: [{ interactor, checker: CHECKER }] });
    expect(
      refusal({ languages: [checked] }, archive("interactor.cpp", "checker.cpp", "testlib.h", "case.in")),
    ).toContain('/languages/0/cases/0/executeOutputFile: "case.out" is not in the config archive');
  });

  test('"compare": "none" needs no expected output, but a checker beside it still does', () => {
    expect(() => parsed({ languages: [language({ cases: [{ compare: "none" }] })] }, archive("case.in"))).not.toThrow();
    const checked = language({ cases: [{ compare: "none", checker: CHECKER }] });
    expect(refusal({ languages: [checked] }, archive("checker.cpp", "testlib.h", "case.in"))).toContain(
      '/languages/0/cases/0/executeOutputFile: "case.out" is not in the config archive',
    );
  });
});

test("every new field round-trips through the snake_case serialisation", () => {
  const config = parsed(
    {
      languageDefault: { compare: "float", epsilon: 1e-6, scoring: "min" },
      languages: [
        language({
          checker: CHECKER,
          caseDefault: { compare: "lines-unordered" },
          cases: [
            { compare: "tokens-icase" },
            { checker: { files: ["check.py"], executeArgs: ["python3", "check.py"] } },
            {},
          ],
          subtasks: [
            { score: 30, cases: [0] },
            { score: 70, cases: [1, 2], dependsOn: [0] },
          ],
        }),
      ],
    },
    [...ARCHIVE, "check.py"],
  );
  const text = new TextDecoder().decode(serializeConfigJson(config));
  for (const key of ['"depends_on"', '"execute_args"', '"compile_args"', '"scoring": "min"', '"epsilon": 0.000001'])
    expect(text).toContain(key);
  expect(parseConfigJson(text)).toEqual(config);
  expect(resolveLanguages(parseConfigJson(text))).toEqual(resolveLanguages(config));
});
