import { describe, expect, test } from "bun:test";
import { versionPath } from "../../src/modules/problem-packages/kattis/kattis-export-version";
import { readKattis } from "../../src/modules/problem-packages/kattis/kattis-package";

// An output validator of several files in each version's shape (issue 56): legacy's output_validators/<name>/,
// 2023-07-draft's output_validator/<name>/ (problemtools' release takes each entry of output_validator/ as a
// program) or its loose files, 2025-09's output_validator/ itself. Import reads each as one program; the export
// writes each version's own.
const bytes = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([path, text]) => [path, new TextEncoder().encode(text)]));
const packageOf = (version: string, validator: string[]) =>
  bytes({
    "problem.yaml": `problem_format_version: ${version}\nname: Guess\ntype: interactive\n`,
    "data/secret/1.in": "3\n",
    ...Object.fromEntries(validator.map((path) => [path, ""])),
  });
const interactorOf = (version: string, validator: string[]) => readKattis(packageOf(version, validator)).interactor;

describe("import of an output validator of two files", () => {
  test("2023-07-draft: one folder inside output_validator/ is that program", () => {
    const files = ["output_validator/guess/validate.cc", "output_validator/guess/validate.h"];
    expect(interactorOf("2023-07-draft", files)).toMatchObject({
      files,
      compileArgs: ["g++", "-O2", "-std=gnu++17", "-o", "interactor", "output_validator/guess/validate.cc"],
    });
  });

  test("2023-07-draft and 2025-09: loose files in output_validator/ are one program", () => {
    const files = ["output_validator/validate.cc", "output_validator/validate.h"];
    for (const version of ["2023-07-draft", "2025-09"]) expect(interactorOf(version, files)?.files).toEqual(files);
  });

  test("2023-07-draft: a folder beside another entry, or two folders, are more than one program", () => {
    const refused = (files: string[]) => () => interactorOf("2023-07-draft", files);
    expect(refused(["output_validator/a/v.cc", "output_validator/b/v.cc"])).toThrow(
      "more than one output validator (output_validator/a, output_validator/b)",
    );
    expect(refused(["output_validator/v.cc", "output_validator/lib/v.h"])).toThrow("more than one output validator");
  });

  test("2025-09: output_validator/ is the program, folders inside it included", () => {
    const files = ["output_validator/lib/v.h", "output_validator/v.cc"];
    expect(interactorOf("2025-09", files)?.files).toEqual(files);
  });
});

describe("the export's validator paths", () => {
  test("output_validator/ goes in each version's place, the validator under its name but in 2025-09", () => {
    const path = "output_validator/validate.h";
    expect(versionPath("legacy", path, "guess")).toBe("output_validators/guess/validate.h");
    expect(versionPath("2023-07-draft", path, "guess")).toBe("output_validator/guess/validate.h");
    expect(versionPath("2025-09", path, "guess")).toBe(path);
    expect(versionPath("2023-07-draft", "statement/problem.en.md", "guess")).toBe("statement/problem.en.md");
    expect(versionPath("legacy", "statement/problem.en.md", "guess")).toBe("problem_statement/problem.en.md");
  });
});
