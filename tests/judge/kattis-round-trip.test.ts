import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { readArchive } from "../../src/modules/problem-configs/archive-reader";
import { archiveOf } from "../helpers/archive-builders";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { problemWithData } from "../helpers/judging";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// A Kattis package imported and exported again keeps what Kattis can say: its files at their paths
// (YAML compared parsed, legacy names and keys converted as listed in each test), and a re-import of the
// export has the same config. Packages of our own, in the 2025-09 and the legacy layout. Nothing is judged:
// the packages' submissions wait in the queue, which no judge reads here.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

type Files = Record<string, string | Buffer>;
const domain = () => `/domains/${cast.domain.id}`;

async function importPackage(files: Files | Uint8Array): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([files instanceof Uint8Array ? files : await archiveOf("zip", files)]), "package.zip");
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${domain()}/problem_packages`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${cast.admin.token}` },
    }),
  );
  const body = (await response.json()) as { errorCode: string; errorMsg: string; data: any };
  expect(`${body.errorCode} ${body.errorMsg ?? ""}`.trim()).toBe("Success");
  // The answer lists the package's problems (one here), or, before that change, is the problem itself.
  return body.data.results?.[0]?.id ?? body.data.id;
}

async function exportPackage(problem: string, version = "2025-09") {
  const query = `format=kattis&formatVersion=${version}`;
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${domain()}/problems/${problem}/package?${query}`, {
      headers: { authorization: `Bearer ${cast.admin.token}` },
    }),
  );
  expect(response.headers.get("content-type")).toBe("application/zip");
  const zip = new Uint8Array(await response.arrayBuffer());
  return { zip, files: new Map<string, Buffer>((await readArchive(zip)).map((e) => [e.path, Buffer.from(e.data)])) };
}

const configOf = async (problem: string) =>
  (await t.api.get(`${domain()}/problems/${problem}/configs/latest/json`, { token: cast.admin.token })).body.data.data;

/** The same files at the same paths: YAML by what it says, everything else byte for byte. */
function expectSameFiles(actual: Map<string, Buffer>, expected: Files) {
  expect([...actual.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [path, want] of Object.entries(expected)) {
    const got = actual.get(path)!;
    if (/\.ya?ml$/.test(path)) expect({ path, yaml: parse(got.toString()) }).toEqual({ path, yaml: parse(`${want}`) });
    else if (typeof want === "string") expect({ path, text: got.toString() }).toEqual({ path, text: want });
    else expect({ path, bytes: got.toString("base64") }).toEqual({ path, bytes: want.toString("base64") });
  }
}

const renamed = (files: Files, rename: (path: string) => string | null): Files =>
  Object.fromEntries(Object.entries(files).flatMap(([path, data]) => (rename(path) ? [[rename(path), data]] : [])));

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 7, 0]);
const ISLANDS_YAML = `problem_format_version: 2025-09
name:
  en: Island Count
  sv: Antal öar
type: scoring
uuid: 3f2b8c1e-5a7d-4e1f-9b0c-2d6e8f4a1b3c
credits:
  authors: Ada Lovelace <ada@example.edu>
  testers:
    - Grace Hopper
source:
  name: Spring Course Contest 2025
  url: https://contest.example.edu/2025
license: cc by-sa
rights_owner: Example University
keywords: [graphs, flood fill]
limits:
  time_limit: 2
  memory: 256
`;
// The output validator's flags where 2025-09 puts them (import reads them from there: kattis-package.ts).
const VALIDATOR_ARGS = "output_validator_args: [--count-only]\n";
const SMALL = `# Maps of at most 10 by 10 cells.
accept_score: 30
range: 0 30
grader_flags: min
on_reject: continue
input_validator_args: [--max-side, "10"]
`;
const ISLANDS: Files = {
  "problem.yaml": ISLANDS_YAML,
  "statement/problem.en.md": "Count the islands of the map.\n\n![Three islands](figure.png)\n\n## Input\n\nA map.\n",
  "statement/problem.sv.md": "Räkna öarna på kartan.\n\n![Tre öar](figure.png)\n\n## Indata\n\nEn karta.\n",
  "statement/figure.png": PNG,
  "attachments/testing_tool.py": "import sys\nprint(open(sys.argv[1]).read())\n",
  "submissions/accepted/flood.py": "import sys\nprint(sum(line.count('#') > 0 for line in sys.stdin))\n",
  "submissions/wrong_answer/diagonal.c": '#include <stdio.h>\nint main(void){puts("1");return 0;}\n',
  "submissions/submissions.yaml":
    "accepted/flood.py:\n  model_solution: true\nwrong_answer/diagonal.c:\n  secret/1-small:\n    permitted: [AC]\n" +
    "  secret/2-large:\n    required: [WA]\n",
  "input_validators/validate.py": "import sys\nlines = sys.stdin.read().split()\nsys.exit(42 if lines else 43)\n",
  "output_validator/validate.py":
    "import sys\nwant = open(sys.argv[2]).read().split()\ngot = sys.stdin.read().split()\n" +
    "sys.exit(42 if got[:1] == want[:1] or '--count-only' not in sys.argv else 43)\n",
  "solution/solution.en.md": "Flood fill from every land cell.\n",
  "generators/spiral.py": "n = 9\nprint('\\n'.join('#' * n for _ in range(n)))\n",
  "data/invalid_input/01-empty.in": "\n",
  "data/sample/test_group.yaml": VALIDATOR_ARGS,
  "data/sample/01.in": "#.#\n...\n#..\n",
  "data/sample/01.ans": "3\n",
  "data/sample/01.png": PNG,
  "data/secret/test_group.yaml": VALIDATOR_ARGS,
  "data/secret/1-small/testdata.yaml": SMALL,
  "data/secret/1-small/01-single.in": "#\n",
  "data/secret/1-small/01-single.ans": "1\n",
  "data/secret/1-small/01-single.desc": "One cell of land.\n",
  "data/secret/1-small/02-line.in": "#.#.#\n",
  "data/secret/1-small/02-line.ans": "3\n",
  "data/secret/1-small/02-line.hint": "Cells touch only side by side.\n",
  "data/secret/2-large/testdata.yaml":
    "accept_score: 70\nrange: 0 70\ngrader_flags: first_error\nfull_feedback: false\n",
  "data/secret/2-large/01-grid.in": "#.\n.#\n",
  "data/secret/2-large/01-grid.ans": "2\n",
  "data/secret/2-large/01-grid.png": PNG,
  "data/secret/2-large/spirals/01-spiral.in": "###\n..#\n###\n",
  "data/secret/2-large/spirals/01-spiral.ans": "1\n",
};

describe("a 2025-09 package", () => {
  let problem: string;
  let exported: { zip: Uint8Array; files: Map<string, Buffer> };
  beforeAll(async () => {
    problem = await importPackage(ISLANDS);
    exported = await exportPackage(problem);
  }, 120_000);

  test("comes back file by file: groups by their names, statements, image, attachments, submissions", () => {
    expectSameFiles(exported.files, ISLANDS);
  });

  test("imported again, it has the same config: cases, groups with their scores, limits, validator", async () => {
    const before = await configOf(problem);
    expect(before.languageDefault.caseDefault.checker.flags).toEqual(["--count-only"]);
    expect(before.languageDefault.subtasks).toEqual([
      { score: 30, cases: [1, 2] },
      { score: 70, cases: [3, 4] },
    ]);
    expect(await configOf(await importPackage(exported.zip))).toEqual(before);
  }, 120_000);

  test("a subtask's new score goes into its testdata.yaml, every other key and comment kept", async () => {
    const config = await configOf(problem);
    config.languageDefault.subtasks = [
      { score: 45, cases: [1, 2] },
      { score: 55, cases: [3, 4] },
    ];
    const posted = await t.api.post(`${domain()}/problems/${problem}/configs/json`, config, {
      token: cast.owner.token,
    });
    expect(posted.body.errorCode).toBe("Success");
    const { files, zip } = await exportPackage(problem);
    const small = files.get("data/secret/1-small/testdata.yaml")!.toString();
    expect(parse(small)).toEqual({ ...parse(SMALL), accept_score: 45, range: "0 45" });
    expect(small).toStartWith("# Maps of at most 10 by 10 cells.\n");
    expect(parse(files.get("data/secret/2-large/testdata.yaml")!.toString())).toEqual({
      ...parse(ISLANDS["data/secret/2-large/testdata.yaml"] as string),
      accept_score: 55,
      range: "0 55",
    });
    const again = await configOf(await importPackage(zip));
    expect(again.languageDefault.subtasks).toEqual(config.languageDefault.subtasks);
  }, 120_000);
});

describe("a package whose subtasks the teacher regrouped", () => {
  test("a regrouped subtask gets a new folder, its cases keep their files; a dropped case's stay out", async () => {
    const problem = await importPackage(ISLANDS);
    const config = await configOf(problem);
    // The spiral dropped, 02-line moved from the small group to the large one.
    config.languageDefault.cases = config.languageDefault.cases.slice(0, 4);
    config.languageDefault.subtasks = [
      { score: 20, cases: [1] },
      { score: 80, cases: [2, 3] },
    ];
    const posted = await t.api.post(`${domain()}/problems/${problem}/configs/json`, config, {
      token: cast.owner.token,
    });
    expect(posted.body.errorCode).toBe("Success");
    const { files, zip } = await exportPackage(problem);
    expect([...files.keys()].filter((path) => path.startsWith("data/secret/")).sort()).toEqual([
      "data/secret/1-small/01-single.ans",
      "data/secret/1-small/01-single.desc",
      "data/secret/1-small/01-single.in",
      "data/secret/1-small/testdata.yaml",
      "data/secret/group2/003.ans",
      "data/secret/group2/003.hint",
      "data/secret/group2/003.in",
      "data/secret/group2/004.ans",
      "data/secret/group2/004.in",
      "data/secret/group2/004.png",
      "data/secret/group2/testdata.yaml",
      "data/secret/test_group.yaml",
    ]);
    expect(files.get("data/secret/group2/003.in")?.toString()).toBe(
      ISLANDS["data/secret/1-small/02-line.in"] as string,
    );
    expect(parse(files.get("data/secret/group2/testdata.yaml")!.toString())).toEqual({ accept_score: 80 });
    const again = await configOf(await importPackage(zip));
    expect(again.languageDefault.subtasks).toEqual(config.languageDefault.subtasks);
  }, 120_000);
});

const CIRCLE: Files = {
  "circle/problem.yaml": `name: Circle Facts
author: Ada Lovelace and Alan Turing
source: Autumn Course Contest 2019
source_url: https://contest.example.edu/2019
license: cc by
rights_owner: Example University
keywords: geometry floating-point
validation: custom
validator_flags: tolerance 1e-4
limits:
  memory: 128
  time_multiplier: 3
`,
  "circle/.timelimit": "2\n",
  "circle/problem_statement/problem.en.tex":
    "\\problemname{Circle Facts}\n\\illustration{0.3}{circle.png}{A circle}\nGiven a radius $r$, print the " +
    "\\emph{area} and the circumference.\n\\section*{Input}\nOne real number.\n",
  "circle/problem_statement/circle.png": PNG,
  "circle/input_format_validators/radius.ctd": "FLOAT(0,1000) NEWLINE EOF\n",
  "circle/output_validators/tolerance/float-validator.cpp": readFileSync(
    join(import.meta.dir, "../fixtures/kattis/float-validator.cpp"),
    "utf8",
  ),
  "circle/data/sample/1.in": "1\n",
  "circle/data/sample/1.ans": "3.14159265 6.28318531\n",
  "circle/data/secret/2.in": "2.5\n",
  "circle/data/secret/2.ans": "19.63495408 15.70796327\n",
  "circle/data/secret/2.desc": "A radius that is not whole.\n",
  "circle/data/secret/3.in": "10\n",
  "circle/data/secret/3.ans": "314.15926536 62.83185307\n",
  "circle/submissions/accepted/circle.c":
    '#include <math.h>\n#include <stdio.h>\nint main(void){double r;scanf("%lf",&r);' +
    'printf("%.6f %.6f\\n",M_PI*r*r,2*M_PI*r);return 0;}\n',
  "circle/submissions/wrong_answer/rough.c":
    '#include <stdio.h>\nint main(void){double r;scanf("%lf",&r);printf("%.2f %.2f\\n",3.14*r*r,6.28*r);return 0;}\n',
};

describe("a legacy package", () => {
  test("comes back in the 2025-09 layout, each legacy name and key converted", async () => {
    const problem = await importPackage(CIRCLE);
    const { files, zip } = await exportPackage(problem);
    const expected = renamed(CIRCLE, (path) => {
      const inside = path.slice("circle/".length); // 1. the package's folder is unwrapped on import
      if (inside === ".timelimit") return null; // 2. .timelimit is problem.yaml's limits.time_limit
      // 3–5. problem_statement/, input_format_validators/ and output_validators/<name>/ by their current names
      return inside
        .replace(/^problem_statement\//, "statement/")
        .replace(/^input_format_validators\//, "input_validators/")
        .replace(/^output_validators\/tolerance\//, "output_validator/");
    });
    // 6. validator_flags are the output_validator_args of data/sample and data/secret (2025-09's place).
    expected["data/sample/test_group.yaml"] = "output_validator_args: [tolerance, '1e-4']\n";
    expected["data/secret/test_group.yaml"] = "output_validator_args: [tolerance, '1e-4']\n";
    expected["problem.yaml"] = JSON.stringify({
      problem_format_version: "2025-09", // 7. the current version
      name: "Circle Facts",
      type: "pass-fail", // 8. validation: custom is the type (pass-fail) with output_validator/
      uuid: problem, // 9. a uuid, which 2025-09 requires: the problem's id
      credits: { authors: ["Ada Lovelace", "Alan Turing"] }, // 10. author is credits' authors
      source: { name: "Autumn Course Contest 2019", url: "https://contest.example.edu/2019" }, // 11. source_url
      license: "cc by",
      rights_owner: "Example University",
      keywords: ["geometry", "floating-point"], // 12. keywords are a list
      // 13. time_multiplier is time_multipliers.ac_to_time_limit; the time limit comes from .timelimit (2)
      limits: { memory: 128, time_multipliers: { ac_to_time_limit: 3 }, time_limit: 2 },
    });
    expectSameFiles(files, expected);
    // Imported again: the same config, the validators' sources at their new paths.
    const before = JSON.stringify(await configOf(problem))
      .replaceAll("output_validators/tolerance/", "output_validator/")
      .replaceAll("input_format_validators/", "input_validators/");
    expect(await configOf(await importPackage(zip))).toEqual(JSON.parse(before));
  }, 120_000);

  test("in 2023-07-draft, its validator is output_validator/<its name>/, and imports again the same", async () => {
    const problem = await importPackage(CIRCLE);
    const { files, zip } = await exportPackage(problem, "2023-07-draft");
    // problemtools' release takes each entry of output_validator/ as a program: the validator is one folder.
    const validator = [...files.keys()].filter((path) => path.startsWith("output_validator"));
    expect(validator).toEqual(["output_validator/tolerance/float-validator.cpp"]);
    const source = CIRCLE["circle/output_validators/tolerance/float-validator.cpp"];
    expect(files.get(validator[0])!.toString()).toBe(source.toString());
    const before = JSON.stringify(await configOf(problem))
      .replaceAll("output_validators/tolerance/", "output_validator/tolerance/")
      .replaceAll("input_format_validators/", "input_validators/");
    const again = await importPackage(zip);
    expect(await configOf(again)).toEqual(JSON.parse(before));
    // Exported again, the same folder (not output_validator/tolerance/tolerance/) and the same files.
    expectSameFiles((await exportPackage(again, "2023-07-draft")).files, Object.fromEntries(files));
  }, 120_000);
});

describe("a package without a time limit", () => {
  const GREETING: Files = {
    "problem.yaml":
      "problem_format_version: 2025-09\nname:\n  sv: Hälsning\nuuid: 0b8e4e2a-9c1d-4f5e-8a7b-6c5d4e3f2a1b\n",
    "statement/problem.sv.md": "Skriv ut en hälsning till personen som namnges.\n",
    "input_validators/validate.py": "import sys\nsys.exit(42 if sys.stdin.read().strip().isalpha() else 43)\n",
    "submissions/accepted/hello.py": "print(f'Hej {input()}!')\n",
    "data/sample/1.in": "Ada\n",
    "data/sample/1.ans": "Hej Ada!\n",
    "data/secret/1.in": "Alan\n",
    "data/secret/1.ans": "Hej Alan!\n",
  };

  test("exports none, its Swedish statement as it is (no English one), and imports again the same", async () => {
    const problem = await importPackage(GREETING);
    const { files, zip } = await exportPackage(problem);
    expect(parse(files.get("problem.yaml")!.toString()).limits).toBeUndefined();
    // type: pass-fail is written out, the default said.
    expectSameFiles(files, { ...GREETING, "problem.yaml": `${GREETING["problem.yaml"]}type: pass-fail\n` });
    const before = await configOf(problem);
    expect(before.languageDefault.caseDefault).toMatchObject({ time: "1000ms", memory: "2048m" });
    expect(await configOf(await importPackage(zip))).toEqual(before);
  }, 120_000);
});

describe("a problem made by a config upload", () => {
  test("gets generated names, a group folder and testdata.yaml per subtask, and imports again the same", async () => {
    const config = {
      languages: [{ name: "c", preset: "c" }],
      languageDefault: {
        caseDefault: { time: "1500ms", memory: "128m", compare: "whitespace" },
        cases: ["a", "b", "c"].map((name, i) => ({
          executeInputFile: `tests/${name}.in`,
          executeOutputFile: `tests/${name}.out`,
          category: i === 0 ? "pretest" : "secret",
          score: i === 0 ? 0 : 50,
        })),
        subtasks: [
          { score: 40, cases: [1] },
          { score: 60, cases: [2] },
        ],
      },
    };
    const data = { "tests/a.in": "1\n", "tests/a.out": "2\n", "tests/b.in": "2\n", "tests/b.out": "4\n" };
    const problem = await problemWithData(t, cast, config, { ...data, "tests/c.in": "3\n", "tests/c.out": "6\n" });
    const { files, zip } = await exportPackage(problem);
    expect([...files.keys()].filter((path) => path.startsWith("data/")).sort()).toEqual([
      "data/sample/001.ans",
      "data/sample/001.in",
      "data/sample/test_group.yaml",
      "data/secret/group1/002.ans",
      "data/secret/group1/002.in",
      "data/secret/group1/testdata.yaml",
      "data/secret/group2/003.ans",
      "data/secret/group2/003.in",
      "data/secret/group2/testdata.yaml",
      "data/secret/test_group.yaml",
    ]);
    expect(parse(files.get("data/secret/group2/testdata.yaml")!.toString())).toEqual({ accept_score: 60 });
    expect(parse(files.get("problem.yaml")!.toString()).limits).toEqual({
      time_limit: 1.5,
      memory: 128,
      time_resolution: 0.1,
    });
    const again = (await configOf(await importPackage(zip))).languageDefault;
    expect(again.subtasks).toEqual(config.languageDefault.subtasks);
    expect(again.caseDefault).toMatchObject({ time: "1500ms", memory: "128m", compare: "whitespace" });
  }, 120_000);
});
