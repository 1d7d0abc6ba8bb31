import { describe, expect, test } from "bun:test";
import { type KattisVersion, verifyKattis } from "../helpers/kattis-verify";

// Each rule of our verifyproblem stand-in (tests/helpers/kattis-verify.ts) catches what it checks: a good
// package has no finding, and each deliberately broken one has the finding its rule gives.
type Files = Record<string, string>;
const bytes = (files: Files) =>
  new Map(Object.entries(files).map(([path, text]) => [path, new TextEncoder().encode(text)]));
const findings = (files: Files, version: KattisVersion) => verifyKattis(bytes(files), version);

const UUID = "5d9c2f7e-1b3a-4c8d-9e0f-7a6b5c4d3e2f";
const CURRENT: Files = {
  "problem.yaml": `problem_format_version: 2023-07-draft\nname: Sum\nuuid: ${UUID}\nlimits:\n  time_limit: 1\n`,
  "statement/problem.en.md": "Add.\n\n![A figure](figure.png)\n",
  "statement/figure.png": "png",
  "data/sample/1.in": "1 2\n",
  "data/sample/1.ans": "3\n",
  "data/secret/1.in": "5 6\n",
  "data/secret/1.ans": "11\n",
  "submissions/accepted/sum.c": "int main(){}\n",
  "input_validators/sum.py": "import sys\nsys.exit(42)\n",
};
const LEGACY: Files = {
  "problem.yaml": "name: Sum\nvalidation: custom\nvalidator_flags: tolerance 1e-4\nkeywords: easy sums\n",
  "problem_statement/problem.en.tex": "\\problemname{Sum}\nAdd.\n",
  "output_validators/tolerance/validate.cc": "int main(){return 42;}\n",
  "output_validators/tolerance/validate.h": "\n",
  "input_validators/sum/sum.cc": "int main(){return 42;}\n",
  "data/sample/1.in": "1 2\n",
  "data/sample/1.ans": "3\n",
  "data/secret/1.in": "5 6\n",
  "data/secret/1.ans": "11\n",
};
const withYaml = (files: Files, yaml: string) => ({ ...files, "problem.yaml": yaml });
const without = (files: Files, ...paths: string[]) =>
  Object.fromEntries(Object.entries(files).filter(([path]) => !paths.includes(path)));

describe("verifyKattis", () => {
  test("finds nothing in a good package of each version", () => {
    expect(findings(CURRENT, "2023-07-draft")).toEqual([]);
    expect(findings(withYaml(CURRENT, CURRENT["problem.yaml"].replace("2023-07-draft", "2025-09")), "2025-09")).toEqual(
      [],
    );
    expect(findings(LEGACY, "legacy")).toEqual([]);
  });

  test("an output validator of two files: one folder in 2023-07-draft, output_validator/ itself in 2025-09", () => {
    const interactive = (version: string, validator: Files) =>
      withYaml(
        { ...CURRENT, ...validator },
        `${CURRENT["problem.yaml"].replace("2023-07-draft", version)}type: interactive\n`,
      );
    const folder = { "output_validator/guess/validate.cc": "", "output_validator/guess/validate.h": "" };
    const flat = { "output_validator/validate.cc": "", "output_validator/validate.h": "" };
    expect(findings(interactive("2023-07-draft", folder), "2023-07-draft")).toEqual([]);
    expect(findings(interactive("2023-07-draft", { "output_validator/validate.py": "" }), "2023-07-draft")).toEqual([]);
    expect(findings(interactive("2025-09", flat), "2025-09")).toEqual([]);
  });

  const broken: [string, Files, KattisVersion, string][] = [
    [
      "a version string the version is not",
      CURRENT,
      "2025-09",
      "problem_format_version '2023-07-draft' is not 2025-09",
    ],
    [
      "another format's field",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}title: 两数之和\n`),
      "2023-07-draft",
      "problem.yaml: unknown field 'title'",
    ],
    [
      "a legacy field in 2023-07-draft",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}validation: custom\n`),
      "2023-07-draft",
      "problem.yaml: unknown field 'validation'",
    ],
    [
      "a 2023-07 field in legacy",
      withYaml(LEGACY, `${LEGACY["problem.yaml"]}credits: Ada\n`),
      "legacy",
      "problem.yaml: unknown field 'credits'",
    ],
    [
      "an unknown limit",
      withYaml(LEGACY, `${LEGACY["problem.yaml"]}limits:\n  time_limit: 1\n`),
      "legacy",
      "problem.yaml: unknown limit 'time_limit'",
    ],
    [
      "a limit that is not a number",
      withYaml(CURRENT, CURRENT["problem.yaml"].replace("time_limit: 1", "time_limit: one")),
      "2023-07-draft",
      "problem.yaml: limits.time_limit is not a number",
    ],
    [
      "a license not in the list",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}license: MIT\n`),
      "2023-07-draft",
      "problem.yaml: license 'MIT' is not one of unknown, public domain, cc0, cc by, cc by-sa, educational, permission",
    ],
    [
      "no uuid",
      withYaml(CURRENT, CURRENT["problem.yaml"].replace(`uuid: ${UUID}\n`, "")),
      "2023-07-draft",
      "problem.yaml: no uuid",
    ],
    [
      "a uuid that is not one",
      withYaml(CURRENT, CURRENT["problem.yaml"].replace(UUID, "P1000")),
      "2023-07-draft",
      "problem.yaml: uuid 'P1000' is not a UUID",
    ],
    [
      "legacy keywords as a list",
      withYaml(LEGACY, LEGACY["problem.yaml"].replace("easy sums", "[easy]")),
      "legacy",
      "problem.yaml: keywords is not a string",
    ],
    [
      "2023-07 keywords as a string",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}keywords: easy\n`),
      "2023-07-draft",
      "problem.yaml: keywords is not a list of strings",
    ],
    [
      "credits of another type",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}credits: [Ada]\n`),
      "2023-07-draft",
      "problem.yaml: credits is neither a string nor a map",
    ],
    [
      "interactive as a legacy type",
      withYaml(LEGACY, `${LEGACY["problem.yaml"]}type: interactive\n`),
      "legacy",
      'problem.yaml: type "interactive" is not one of pass-fail, scoring',
    ],
    [
      "a legacy validation that is not one",
      withYaml(LEGACY, LEGACY["problem.yaml"].replace("validation: custom", "validation: custom strict")),
      "legacy",
      "problem.yaml: validation 'custom strict' is not default or custom [score] [interactive]",
    ],
    [
      "no statement",
      without(CURRENT, "statement/problem.en.md"),
      "2023-07-draft",
      "no statement in statement/ (problem.<language>.md|tex)",
    ],
    [
      "a Markdown statement in legacy",
      without({ ...LEGACY, "problem_statement/problem.en.md": "Add.\n" }, "problem_statement/problem.en.tex"),
      "legacy",
      "no statement in problem_statement/ (problem.<language>.tex)",
    ],
    [
      "the statement in the other version's folder",
      { ...CURRENT, "problem_statement/problem.en.tex": "x" },
      "2023-07-draft",
      "problem_statement/ is not 2023-07-draft's statement folder",
    ],
    [
      "two statements in one language",
      { ...CURRENT, "statement/problem.en.tex": "Add.\n" },
      "2023-07-draft",
      "more than one statement in language en",
    ],
    [
      "a legacy statement without a name",
      withYaml({ ...LEGACY, "problem_statement/problem.en.tex": "Add.\n" }, "validation: custom\n"),
      "legacy",
      "a legacy statement names no problem (\\problemname)",
    ],
    [
      "an image not in the package",
      { ...CURRENT, "statement/problem.en.md": "![](/api/v1/domains/d/problems/p/attachments/f.png)\n" },
      "2023-07-draft",
      "statement/problem.en.md: image /api/v1/domains/d/problems/p/attachments/f.png is not a file of the package",
    ],
    [
      "an image missing beside the statement",
      without(CURRENT, "statement/figure.png"),
      "2023-07-draft",
      "statement/problem.en.md: image figure.png is not in statement/",
    ],
    [
      "an image of another kind",
      { ...CURRENT, "statement/problem.en.md": "![](figure.svg)\n", "statement/figure.svg": "" },
      "2023-07-draft",
      "statement/problem.en.md: image figure.svg is not PNG or JPEG",
    ],
    [
      "a Chinese statement named English only in problem.yaml",
      { ...without(CURRENT, "statement/problem.en.md"), "statement/problem.zh.md": "加。\n" },
      "2023-07-draft",
      "no problem name in language zh",
    ],
    [
      "a name without a statement",
      withYaml(CURRENT, CURRENT["problem.yaml"].replace("name: Sum", "name: {en: Sum, sv: Summa}")),
      "2023-07-draft",
      "names for languages without a statement: sv",
    ],
    [
      "an input without an answer",
      without(CURRENT, "data/secret/1.ans"),
      "2023-07-draft",
      "data/secret/1.in: no answer file",
    ],
    [
      "an answer without an input",
      { ...CURRENT, "data/secret/2.ans": "" },
      "2023-07-draft",
      "data/secret/2.ans: no input file",
    ],
    ["no secret data", without(CURRENT, "data/secret/1.in", "data/secret/1.ans"), "2023-07-draft", "no secret data"],
    [
      "no sample data",
      without(CURRENT, "data/sample/1.in", "data/sample/1.ans"),
      "2023-07-draft",
      "warning: no sample data",
    ],
    [
      "a folder beside sample and secret",
      { ...CURRENT, "data/extra/1.in": "", "data/extra/1.ans": "" },
      "2023-07-draft",
      "data/extra/1.in: data/ holds only sample and secret",
    ],
    [
      "an interaction of a problem that is not interactive",
      { ...CURRENT, "data/sample/1.interaction": "<1\n" },
      "2023-07-draft",
      "data/sample/1.interaction: an interaction sample of a problem that is not interactive",
    ],
    [
      "an interaction line without a direction",
      withYaml(
        { ...CURRENT, "data/sample/1.interaction": "<1\nhi\n", "output_validator/v.cc": "" },
        `${CURRENT["problem.yaml"]}type: interactive\n`,
      ),
      "2023-07-draft",
      "data/sample/1.interaction: a line does not start with < or >",
    ],
    [
      "an interactive problem without a validator",
      withYaml(CURRENT, `${CURRENT["problem.yaml"]}type: interactive\n`),
      "2023-07-draft",
      "no output validator in output_validator/",
    ],
    [
      "a legacy custom validation without a validator",
      without(LEGACY, "output_validators/tolerance/validate.cc", "output_validators/tolerance/validate.h"),
      "legacy",
      "no output validator in output_validators/",
    ],
    [
      "a legacy validator flattened out of its folder",
      { ...LEGACY, "output_validators/validate.cc": "" },
      "legacy",
      "output_validators/ holds its validator as one folder",
    ],
    [
      "a 2023-07-draft validator of two files side by side, not in one folder",
      withYaml(
        { ...CURRENT, "output_validator/validate.cc": "", "output_validator/validate.h": "" },
        `${CURRENT["problem.yaml"]}type: interactive\n`,
      ),
      "2023-07-draft",
      "output_validator/ holds one program, a file or one folder, not validate.cc, validate.h",
    ],
    [
      "two legacy validators",
      { ...LEGACY, "output_validators/other/validate.cc": "" },
      "legacy",
      "more than one output validator",
    ],
    [
      "the validator in the other version's folder",
      { ...CURRENT, "output_validators/v/validate.cc": "" },
      "2023-07-draft",
      "output_validators/ is not 2023-07-draft's folder",
    ],
    [
      "input validators under their legacy name",
      { ...CURRENT, "input_format_validators/v.py": "" },
      "2023-07-draft",
      "input_format_validators/ is not 2023-07-draft's folder",
    ],
    [
      "a submissions folder no verdict names",
      { ...CURRENT, "submissions/solution/sum.c": "" },
      "2023-07-draft",
      "submissions/solution/ is not a 2023-07-draft verdict folder",
    ],
    [
      "a 2023-07 verdict folder in legacy",
      { ...LEGACY, "submissions/rejected/sum.c": "" },
      "legacy",
      "submissions/rejected/ is not a legacy verdict folder",
    ],
    [
      "a file at submissions' top",
      { ...CURRENT, "submissions/sum.c": "" },
      "2023-07-draft",
      "submissions/sum.c: a file at submissions/'s top",
    ],
    [
      "a file name verifyproblem refuses",
      { ...CURRENT, "statement/图 1.png": "" },
      "2023-07-draft",
      "invalid file or folder name '图 1.png' in statement/图 1.png",
    ],
  ];

  test.each(broken)("catches %s", (_, files, version, finding) => {
    expect(findings(files, version)).toContain(finding);
  });
});
