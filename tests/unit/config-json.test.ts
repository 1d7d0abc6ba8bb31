import { describe, expect, test } from "bun:test";
import { BizError } from "../../src/core/errors";
import {
  languageNames,
  parseConfigJson,
  resolveLanguages,
  serializeConfigJson,
} from "../../src/core/config-model/config-json";
import { defaultConfigJson } from "../../src/core/config-model/config-schema";

function refusal(input: unknown): string {
  try {
    parseConfigJson(typeof input === "string" ? input : JSON.stringify(input));
  } catch (error) {
    expect(error).toBeInstanceOf(BizError);
    expect((error as BizError).code).toBe("FileValidationError");
    return (error as BizError).message;
  }
  throw new Error("accepted an invalid config.json");
}

describe("config.json", () => {
  test("camelCase and snake_case keys both parse; cases inherit caseDefault, then Horse's defaults", () => {
    const config = parseConfigJson(
      JSON.stringify({
        languages: [
          {
            name: "c",
            compile_files: ["a.c"],
            compile_args: ["gcc", "-O2", "a.c"],
            case_default: { time: "2s" },
            cases: [{ score: 50 }, { score: 50, memory: "128m" }],
          },
        ],
      }),
    );
    expect(languageNames(config)).toEqual(["c"]);
    const [c] = resolveLanguages(config);
    expect(c.compileArgs).toEqual(["gcc", "-O2", "a.c"]);
    expect(c.cases[0]).toMatchObject({
      time: "2s",
      memory: "64m",
      score: 50,
      executeInputFile: "case.in",
      ignoreWhitespace: true,
    });
    expect(c.cases[1]).toMatchObject({ time: "2s", memory: "128m" });
  });

  test("languageDefault fills what a language leaves out", () => {
    const config = parseConfigJson(
      JSON.stringify({
        languageDefault: { cases: [{ time: "500ms" }], compileFiles: ["main.py"] },
        languages: [{ name: "python3", compileArgs: ["python3", "-m", "py_compile", "main.py"] }],
      }),
    );
    const [py] = resolveLanguages(config);
    expect(py.compileFiles).toEqual(["main.py"]);
    expect(py.cases).toHaveLength(1);
    expect(py.cases[0].time).toBe("500ms");
  });

  test.each([
    ["{not json", "not valid JSON"],
    [[1, 2], "must be a JSON object"],
    [{}, "/languages"],
    [{ languages: [] }, "/languages"],
    [{ languages: [{ name: "", cases: [{}] }] }, "/languages/0/name"],
    [{ languages: [{ name: "c", cases: [{ time: "fast" }] }] }, "/languages/0/cases/0/time"],
    [{ languages: [{ name: "c", cases: [{ memory: "lots" }] }] }, "/languages/0/cases/0/memory"],
    [{ languages: [{ name: "c", cases: [{ score: -1 }] }] }, "/languages/0/cases/0/score"],
    [
      { languages: [{ name: "c", cases: [{ executeInputFile: "../../etc/shadow" }] }] },
      "/languages/0/cases/0/executeInputFile",
    ],
    [{ languages: [{ name: "c", cases: [{ executeOutputFile: "/abs" }] }] }, "/languages/0/cases/0/executeOutputFile"],
    [{ languages: [{ name: "c" }] }, "has no cases"],
    [
      {
        languages: [
          { name: "c", cases: [{}] },
          { name: "c", cases: [{}] },
        ],
      },
      "listed twice",
    ],
  ])("%j is refused with a message naming the problem", (input, fragment) => {
    expect(refusal(input)).toContain(fragment);
  });

  test("the default config is valid and round-trips through its snake_case serialisation", () => {
    const bytes = serializeConfigJson(defaultConfigJson());
    expect(new TextDecoder().decode(bytes)).toContain('"compile_files"');
    expect(languageNames(parseConfigJson(bytes))).toEqual(["c++"]);
  });
});
