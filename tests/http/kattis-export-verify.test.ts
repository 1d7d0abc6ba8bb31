import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readArchive } from "../../src/modules/problem-configs/archive-reader";
import { archiveOf } from "../helpers/archive-builders";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { type KattisVersion, verifyKattis } from "../helpers/kattis-verify";
import { onePixelPng } from "../helpers/png";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// One package of each format we import (ours, built here), exported in each Kattis format version: our verifier
// of what problemtools' verifyproblem checks finds nothing, and the export imports again to the same problem.
// Nothing is judged: the packages' submissions wait in the queue, which no judge reads here.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

const domain = () => `/domains/${cast.domain.id}`;
const VERSIONS: KattisVersion[] = ["legacy", "2023-07-draft", "2025-09"];
const PNG = onePixelPng();
const SUM_C = '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n';
const HALF_C = '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a);return 0;}\n';

// Our input validators: the guessing game's (Kattis: one number from 1 to 1000 on its own line; 42 valid, 43 not)
// and a + b's, testlib-style without testlib (Polygon: "a b", integers in [-1e9, 1e9]; 0 valid, 3 not).
const GUESS_VALIDATOR = `#include <iostream>
#include <iterator>
#include <regex>
#include <string>
int main() {
  std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (!std::regex_match(in, std::regex("[1-9][0-9]{0,3}\\n"))) return 43;
  return std::stoi(in) <= 1000 ? 42 : 43;
}
`;
const SUM_VALIDATOR = `#include <stdio.h>
static int c;
static int integer(void) {
  long value = 0;
  int digits = 0, negative = c == '-';
  if (negative) c = getchar();
  if (c == '0') { c = getchar(); return !negative && (c < '0' || c > '9'); }
  while (c >= '0' && c <= '9' && digits < 11) { value = value * 10 + (c - '0'); digits++; c = getchar(); }
  return digits > 0 && value <= 1000000000;
}
int main(void) {
  c = getchar();
  if (!integer() || c != ' ') return 3;
  c = getchar();
  if (!integer() || c != '\\n') return 3;
  return getchar() == EOF ? 0 : 3;
}
`;
const KATTIS = {
  "problem.yaml":
    "problem_format_version: 2023-07-draft\nname: Guess\ntype: interactive\nuuid: 5d9c2f7e-1b3a-4c8d-9e0f-7a6b5c4d3e2f\n",
  "statement/problem.en.md": "Guess the number.\n",
  "output_validator/validate.cc": '#include "validate.h"\nint main(int, char** argv){return judge(argv[1]);}\n',
  "output_validator/validate.h": "#include <cstdio>\ninline int judge(const char*){return 42;}\n",
  "data/sample/1.in": "7\n",
  "data/sample/1.ans": "",
  "data/sample/1.interaction": "<5\n>higher\n<7\n>correct\n",
  "data/secret/1.in": "3\n",
  "data/secret/1.ans": "",
  "submissions/accepted/guess.c": '#include <stdio.h>\nint main(void){puts("7");return 0;}\n',
  "input_validators/guess.cpp": GUESS_VALIDATOR,
};
const tests = `<tests><test method="manual" sample="true"/><test method="manual"/></tests>`;
const POLYGON = {
  "problem.xml": `<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="sum"><names><name language="english" value="Sum"/></names>
<judging input-file="" output-file=""><testset name="tests"><time-limit>2000</time-limit>
<memory-limit>268435456</memory-limit><input-path-pattern>tests/%02d</input-path-pattern>
<answer-path-pattern>tests/%02d.a</answer-path-pattern>${tests}</testset></judging>
<assets><solutions><solution tag="main"><source path="solutions/sum.c" type="c.gcc"/></solution>
<solution tag="wrong-answer"><source path="solutions/half.c" type="c.gcc"/></solution></solutions>
<validators><validator><source path="files/val.c" type="c.gcc"/></validator></validators></assets></problem>`,
  "statement-sections/english/legend.tex": "Add $a$ and $b$.\n",
  "tests/01": "1 2\n",
  "tests/01.a": "3\n",
  "tests/02": "5 6\n",
  "tests/02.a": "11\n",
  "solutions/sum.c": SUM_C,
  "solutions/half.c": HALF_C,
  "files/val.c": SUM_VALIDATOR,
};
const FPS = `<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.2"><item><title>两数之和</title><time_limit unit="s">1</time_limit>
<memory_limit unit="mb">128</memory_limit><description><![CDATA[<p>输入两个整数，输出它们的和。</p>
<img src="/upload/图 1.png">]]></description><img><src>/upload/图 1.png</src><base64>${PNG.toString("base64")}</base64></img>
<sample_input>1 2</sample_input><sample_output>3</sample_output><test_input>5 6</test_input><test_output>11</test_output>
<solution language="C"><![CDATA[${SUM_C}]]></solution></item></fps>`;
const HYDRO = {
  "problem.yaml": "title: 两数之和\ntag: [入门]\npid: P1000\n",
  "problem_zh.md": "计算两个整数的和。\n\n![图](file://figure.png)\n",
  "additional_file/figure.png": PNG,
  "testdata/config.yaml":
    "time: 1s\nmemory: 256m\ncases:\n  - {input: 1.in, output: 1.out}\n  - {input: 2.in, output: 2.out}\n",
  "testdata/1.in": "1 2\n",
  "testdata/1.out": "3\n",
  "testdata/2.in": "5 6\n",
  "testdata/2.out": "11\n",
  "std/sum.c": SUM_C,
};

async function importBytes(bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${domain()}/problem_packages`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${cast.admin.token}` },
    }),
  );
  const body = (await response.json()) as { errorCode: string; errorMsg?: string; data: any };
  expect(`${body.errorCode} ${body.errorMsg ?? ""}`.trim()).toBe("Success");
  return body.data.results[0].id;
}

async function exported(problem: string, version: KattisVersion) {
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${domain()}/problems/${problem}/package?formatVersion=${version}`, {
      headers: { authorization: `Bearer ${cast.admin.token}` },
    }),
  );
  expect(response.headers.get("content-type")).toBe("application/zip");
  const zip = new Uint8Array(await response.arrayBuffer());
  return { zip, files: new Map((await readArchive(zip)).map((e) => [e.path, new Uint8Array(e.data)])) };
}

const get = async (path: string) => (await t.api.get(`${domain()}${path}`, { token: cast.admin.token })).body.data;
/** What a re-import must keep: the cases' data, the limits, the judging, the subtasks, the statement. */
async function problemOf(problem: string, markdown: boolean) {
  const json = (await get(`/problems/${problem}/configs/latest/json`)).data;
  const config = json.languageDefault;
  const verification = await get(`/problems/${problem}/package/verification`);
  const { content, title } = await get(`/problems/${problem}`);
  const cases = config.cases.map((c: any) => [c.category, c.time, c.memory, programOf(c.checker ?? c.interactor)]);
  const submissions = verification.results.map((r: any) => r.expected).sort();
  return {
    title,
    cases,
    subtasks: config.subtasks,
    compare: config.caseDefault?.compare,
    submissions,
    inputValidators: json.inputValidators?.length ?? 0,
    ...(markdown ? { content: linksOf(content) } : {}),
  };
}

/** Where each version puts the Kattis package's output validator (named `validator`: its package gave no name). */
const FOLDER: Record<KattisVersion, string> = {
  legacy: "output_validators/validator",
  "2023-07-draft": "output_validator/validator",
  "2025-09": "output_validator",
};

/**
 * A validator's files and build, its paths inside its folder: the version names that folder (legacy
 * output_validators/validator/, 2023-07-draft output_validator/validator/, 2025-09 output_validator/).
 */
function programOf(program: { files: string[]; compileArgs?: string[]; executeArgs: string[] } | undefined) {
  const local = (path: string) => path.replace(/^output_validators?\/(?:validator\/)?/, "");
  if (!program) return null;
  const { files, compileArgs = [], executeArgs } = program;
  return [files, compileArgs, executeArgs].map((list) => list.map(local));
}

/** Attachments' links by their file's extension: the export renames a file verifyproblem would refuse (图 1.png). */
const linksOf = (content: string) =>
  content.replace(/\/api\/v1\/domains\/[^)>\s"]*\/attachments\/[^)>\s"]*(\.\w+)/g, "ATTACHMENT$1");

/** Each format's package, and its time limit in seconds (null: none, as the Kattis package says none). */
const PACKAGES: [string, () => Promise<Uint8Array>, string, number | null][] = [
  ["Kattis", async () => archiveOf("zip", KATTIS), "package.zip", null],
  ["Polygon", async () => archiveOf("zip", POLYGON), "package.zip", 2],
  ["FPS", async () => new TextEncoder().encode(FPS), "problems.xml", 1],
  ["Hydro", async () => archiveOf("zip", HYDRO), "package.zip", 1],
];

/**
 * KATTIS_EXPORT_DIR, when set, keeps each export there as <format>-<version>.zip, to run problemtools'
 * verifyproblem on by hand (docs/problem-packages.md "Checked with problemtools"); unset, nothing is written.
 */
function keep(zip: Uint8Array, format: string, version: KattisVersion) {
  const dir = process.env.KATTIS_EXPORT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${format}-${version}.zip`, zip);
}

describe.each(PACKAGES)("a %s package exported", (format, build, name, timeLimit) => {
  let problem: string;
  beforeAll(async () => {
    problem = await importBytes(await build(), name);
  }, 60_000);

  test.each(VERSIONS)(
    "as %s passes the verifier and imports again to the same problem",
    async (version) => {
      const { files, zip } = await exported(problem, version);
      keep(zip, format, version);
      // Hydro keeps its samples in the statement only: there is no sample case to export. FPS and Hydro have no
      // input validator (neither format has one), which problemtools requires before 2025-09.
      const none = ["FPS", "Hydro"].includes(format) && version !== "2025-09";
      expect(verifyKattis(files, version, { timeLimit })).toEqual([
        ...(format === "Hydro" ? ["warning: no sample data"] : []),
        ...(none ? ["no input validator in input_validators/"] : []),
      ]);
      if (format === "Kattis") {
        // The sample's interaction and the validator's header beside its source, in the version's folder.
        // 2023-07-draft: in a folder of its own, which problemtools' release compiles as one program.
        const validator = FOLDER[version];
        expect([...files.keys()].filter((path) => /^output_validators?\//.test(path))).toEqual([
          `${validator}/validate.cc`,
          `${validator}/validate.h`,
        ]);
        expect(files.has("data/sample/1.interaction")).toBe(true);
      }
      const again = await importBytes(zip, "export.zip");
      // Legacy's statement is LaTeX beside the Markdown one import shows: the text is compared where Markdown.
      const before = await problemOf(problem, version !== "legacy" || !!files.get("problem_statement/problem.en.md"));
      const after = await problemOf(again, version !== "legacy" || !!files.get("problem_statement/problem.en.md"));
      expect({ ...after, submissions: after.submissions.length }).toEqual({
        ...before,
        submissions: before.submissions.length,
      });
      // Exported again from the re-import: the same files (2023-07-draft's validator folder not nested twice).
      if (format === "Kattis") expect([...(await exported(again, version)).files.keys()]).toEqual([...files.keys()]);
    },
    60_000,
  );
});

describe("what the export says", () => {
  test("the default version is 2023-07-draft; Hydro's own keys stay out; a Chinese statement is problem.zh.md", async () => {
    const problem = await importBytes(await archiveOf("zip", HYDRO), "package.zip");
    const response = await t.app.handle(
      new Request(`http://localhost/api/v1${domain()}/problems/${problem}/package`, {
        headers: { authorization: `Bearer ${cast.admin.token}` },
      }),
    );
    const files = new Map(
      (await readArchive(new Uint8Array(await response.arrayBuffer()))).map((e) => [e.path, e.data]),
    );
    const yaml = new TextDecoder().decode(files.get("problem.yaml"));
    expect(yaml).toContain("problem_format_version: 2023-07-draft");
    expect(yaml).not.toMatch(/title|tag|pid/);
    expect(
      [...files.keys()].filter((path) => path.startsWith("statement/") || path.startsWith("submissions/")),
    ).toEqual(["statement/figure.png", "statement/problem.zh.md", "submissions/accepted/sum.c"]);
    expect(new TextDecoder().decode(files.get("statement/problem.zh.md"))).toContain("![图](figure.png)");
  }, 60_000);
});

describe("input validators", () => {
  const configOf = async (problem: string) => (await get(`/problems/${problem}/configs/latest/json`)).data;

  test("Kattis's go out as they came in, in every version", async () => {
    const problem = await importBytes(await archiveOf("zip", KATTIS), "package.zip");
    expect((await configOf(problem)).inputValidators).toEqual([
      {
        files: ["input_validators/guess.cpp"],
        compileArgs: ["g++", "-O2", "-std=gnu++17", "-o", "guess", "input_validators/guess.cpp"],
        executeArgs: ["./guess"],
        protocol: "kattis",
      },
    ]);
    for (const version of VERSIONS) {
      const { files } = await exported(problem, version);
      expect(new TextDecoder().decode(files.get("input_validators/guess.cpp"))).toBe(GUESS_VALIDATOR);
    }
  }, 60_000);

  test("Polygon's is kept and goes out in a Python program that speaks Kattis's exit codes", async () => {
    const problem = await importBytes(await archiveOf("zip", POLYGON), "package.zip");
    expect((await configOf(problem)).inputValidators).toEqual([
      {
        files: ["files/val.c"],
        compileArgs: ["gcc", "-O2", "-std=gnu11", "-o", "validator", "files/val.c", "-lm"],
        executeArgs: ["./validator"],
        protocol: "testlib",
      },
    ]);
    const { files } = await exported(problem, "legacy");
    const dir = mkdtempSync(join(tmpdir(), "input-validator-"));
    try {
      writeFileSync(join(dir, "val.py"), files.get("input_validators/val.py")!);
      const run = (input: string) => spawnSync("python3", ["val.py"], { cwd: dir, input }).status;
      // Valid; then what problemtools tries on every validator: doubled spaces, a leading zero, junk at the end.
      expect(["1 2\n", "1  2\n", "01 2\n", "1 2\nx"].map(run)).toEqual([42, 43, 43, 43]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
