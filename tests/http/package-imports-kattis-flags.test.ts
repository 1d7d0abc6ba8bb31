import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { archiveOf } from "../helpers/archive-builders";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// The output validator's flags where 2023-07-draft puts them: testdata.yaml in data/ and the folders below it
// (docs/problem-packages.md "Kattis"). Packages of our own; each import read back as its config.json.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

const DRAFT = "problem_format_version: 2023-07-draft\nname: Echo\nuuid: 6f1c2a40-0000-4000-8000-000000000001\n";
const CASES = {
  "data/sample/1.in": "Hello\n",
  "data/sample/1.ans": "Hello\n",
  "data/secret/1.in": "World\n",
  "data/secret/1.ans": "World\n",
};
const VALIDATOR = "#include <stdio.h>\nint main(int argc, char **argv) { return argc > 4 ? 42 : 43; }\n";

async function imported(files: Record<string, string>) {
  const { body } = await uploadPackage(t, cast, { bytes: await archiveOf("zip", files), name: "echo.zip" });
  expect(body.errorCode).toBe("Success");
  const problem = body.data.results[0];
  const path = `/domains/${cast.domain.id}/problems/${problem.id}/configs/latest/json`;
  const config = (await t.api.get(path, { token: cast.admin.token })).body.data.data;
  return { caseDefault: config.languageDefault.caseDefault, notes: problem.notes as string[] };
}

describe("2023-07-draft output_validator_flags in testdata.yaml", () => {
  test("without flags the default validation ignores case", async () => {
    const { caseDefault } = await imported({ "problem.yaml": DRAFT, ...CASES });

    expect(caseDefault.compare).toBe("tokens-icase");
  });

  test("case_sensitive space_change_sensitive in data/testdata.yaml makes the comparison case-sensitive", async () => {
    const testdata = "output_validator_flags: case_sensitive space_change_sensitive\n";

    const { caseDefault } = await imported({ "problem.yaml": DRAFT, "data/testdata.yaml": testdata, ...CASES });

    expect(caseDefault.compare).toBe("whitespace");
  });

  test("float_tolerance in data/testdata.yaml makes the float comparison", async () => {
    const testdata = "output_validator_flags: float_tolerance 1e-6\n";

    const { caseDefault } = await imported({ "problem.yaml": DRAFT, "data/testdata.yaml": testdata, ...CASES });

    expect(caseDefault).toMatchObject({ compare: "float", epsilon: 1e-6 });
  });

  test("a custom validator gets the flags as its arguments", async () => {
    const files = {
      "problem.yaml": DRAFT,
      "data/testdata.yaml": "output_validator_flags: --tolerance 1e-4\n",
      "output_validator/validate.c": VALIDATOR,
      ...CASES,
    };

    const { caseDefault } = await imported(files);

    expect(caseDefault.checker).toMatchObject({ protocol: "kattis", flags: ["--tolerance", "1e-4"] });
  });

  test("a folder's testdata.yaml is nearer than data/'s; the samples' other flags are a note", async () => {
    const files = {
      "problem.yaml": DRAFT,
      "data/testdata.yaml": "output_validator_flags: --sample-mode\n",
      "data/secret/testdata.yaml": "output_validator_flags: --strict\ninput_validator_flags: --max 10\n",
      "output_validator/validate.c": VALIDATOR,
      ...CASES,
    };

    const { caseDefault, notes } = await imported(files);

    expect(caseDefault.checker.flags).toEqual(["--strict"]);
    expect(notes).toContainEqual(expect.stringContaining("the output validator's arguments differ"));
    expect(notes).toContain(
      "data/secret/testdata.yaml: input_validator_flags kept in the file; input validators are not run here",
    );
  });

  test("legacy problem.yaml validator_flags still count when no testdata.yaml sets any", async () => {
    const legacy = "name: Echo\nvalidation: default\nvalidator_flags: case_sensitive\n";

    const { caseDefault } = await imported({ "problem.yaml": legacy, ...CASES });

    expect(caseDefault.compare).toBe("whitespace");
  });
});
