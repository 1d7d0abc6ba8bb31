import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { archiveOf, deflatedZeros, rawZip, tarOf } from "../helpers/archive-builders";
import { judgeStack, type JudgeStack } from "../helpers/judging";
import { judgedRecord, uploadPackage, verificationOf } from "../helpers/packages";

// Problem packages through the API, then judged by the real judge: packages of our own in the Kattis
// layouts (legacy and 2023-07) and the Polygon layout (tests/fixtures/kattis, tests/fixtures/polygon).
const UID_BASE = 71_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;
const kattis = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/kattis", name), "utf8");
const polygon = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/polygon", name), "utf8");

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

async function importPackage(
  files: Record<string, string> | Uint8Array,
  token = cast.admin.token,
  fields: Record<string, string> = {},
) {
  const zip = files instanceof Uint8Array ? files : await archiveOf("zip", files);
  const answer = await uploadPackage(t, cast, { bytes: zip, name: "package.zip" }, token, fields);
  // A package of one problem: that problem, as the answer lists it.
  return { ...answer, one: answer.body.data?.results?.[0] };
}

const judged = (problem: string, language: string, file: string, source: string) =>
  judgedRecord(t, cast, problem, { language, file, source });
const problemCount = async () =>
  (await t.orm.em.fork().getConnection().execute("select count(*)::int as n from problems"))[0].n;

const CIRCLE =
  '#include <math.h>\n#include <stdio.h>\nint main(void){double r;scanf("%lf",&r);printf("%.6f %.6f\\n",M_PI*r*r,2*M_PI*r);return 0;}\n';
const ROUGH =
  '#include <stdio.h>\nint main(void){double r;scanf("%lf",&r);printf("%.2f %.2f\\n",3.14*r*r,6.28*r);return 0;}\n';
const LEGACY = {
  "circle/problem.yaml":
    "name: Circle Facts\nvalidation: custom\nvalidator_flags: tolerance 1e-4\nlimits:\n  memory: 128\n",
  "circle/.timelimit": "2\n",
  "circle/problem_statement/problem.en.tex":
    "\\problemname{Circle Facts}\n% a comment\nGiven a radius $r$, print the \\emph{area} and the circumference.\n\\section*{Input}\nOne real number.\n",
  "circle/data/sample/1.in": "1\n",
  "circle/data/sample/1.ans": "3.14159265 6.28318531\n",
  "circle/data/secret/2.in": "2.5\n",
  "circle/data/secret/2.ans": "19.63495408 15.70796327\n",
  "circle/data/secret/3.in": "10\n",
  "circle/data/secret/3.ans": "314.15926536 62.83185307\n",
  "circle/output_validators/tolerance/float-validator.cpp": kattis("float-validator.cpp"),
  "circle/submissions/accepted/circle.c": CIRCLE,
  "circle/submissions/wrong_answer/rough.c": ROUGH,
  // Filed under accepted, but it prints the circumference only: the verification must show it.
  "circle/submissions/accepted/half.c":
    '#include <math.h>\n#include <stdio.h>\nint main(void){double r;scanf("%lf",&r);printf("%.6f\\n",2*M_PI*r);return 0;}\n',
  "circle/submissions/accepted/notes.txt": "not a program\n",
};

describe("a Kattis package (legacy layout) with a custom validator", () => {
  let problem: string;
  test("is imported: its name, its statement's text, its limits, its validator, its cases in order", async () => {
    const before = await problemCount();
    const imported = await importPackage(LEGACY, cast.admin.token, { url: "circle-facts" });
    expect(imported.body.errorCode).toBe("Success");
    expect(imported.one).toMatchObject({ title: "Circle Facts", url: "circle-facts" });
    expect(imported.one.content).toContain("# Circle Facts");
    expect(imported.one.content).toContain("print the area and the circumference");
    expect(imported.one.content).not.toContain("\\emph");
    expect(await problemCount()).toBe(before + 1);
    problem = imported.one.id;
    const config = (
      await t.api.get(`/domains/${cast.domain.id}/problems/${problem}/configs/latest/json`, { token: cast.admin.token })
    ).body.data.data;
    expect(config.languages.map((l: { name: string }) => l.name)).toEqual([
      "c",
      "cpp",
      "python3",
      "java",
      "go",
      "rust",
      "javascript",
    ]);
    expect(config.languageDefault.caseDefault).toMatchObject({
      time: "2000ms",
      memory: "128m",
      checker: {
        protocol: "kattis",
        flags: ["tolerance", "1e-4"],
        files: ["output_validators/tolerance/float-validator.cpp"],
      },
    });
    expect(
      config.languageDefault.cases.map((c: { executeInputFile: string; category: string; score: number }) => [
        c.executeInputFile,
        c.category,
        c.score,
      ]),
    ).toEqual([
      ["data/sample/1.in", "pretest", 0],
      ["data/secret/2.in", "secret", 50],
      ["data/secret/3.in", "secret", 50],
    ]);
  }, 120_000);

  test("the package's own submissions are judged as no one's records, expected beside actual", async () => {
    const path = `/domains/${cast.domain.id}/problems/${problem}/package/verification`;
    const view = await verificationOf(t, cast, problem);
    expect(view).toMatchObject({ format: "kattis", count: 4, pending: 0, mismatches: 1 });
    const byPath = Object.fromEntries(view.results.map((r: { path: string }) => [r.path, r]));
    expect(byPath["submissions/accepted/circle.c"]).toMatchObject({
      expected: "accepted",
      actual: "accepted",
      matches: true,
      language: "c",
    });
    expect(byPath["submissions/wrong_answer/rough.c"]).toMatchObject({
      expected: "wrong_answer",
      actual: "wrong_answer",
      matches: true,
    });
    expect(byPath["submissions/accepted/half.c"]).toMatchObject({
      expected: "accepted",
      actual: "wrong_answer",
      matches: false,
    });
    expect(byPath["submissions/accepted/notes.txt"]).toMatchObject({
      record: null,
      matches: null,
      skipped: "no language preset runs .txt files",
      reason: "not judged: no language preset runs .txt files",
    });
    // No one's records, in no problem set: no student's list, scoreboard, grades or similarity report.
    const ids = view.results.flatMap((r: { record: string | null }) => (r.record ? [r.record] : []));
    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute("select committer_id, problem_set_id from records where id = any(?::uuid[])", [`{${ids.join(",")}}`]);
    expect(rows).toEqual(ids.map(() => ({ committer_id: null, problem_set_id: null })));
    expect((await t.api.get(path, { token: cast.member.token })).status).toBe(403);
  }, 180_000);

  test("a correct program is accepted, an imprecise one rejected by the package's validator", async () => {
    expect(await judged(problem, "c", "circle.c", CIRCLE)).toMatchObject({ state: "accepted", score: 100 });
    const rough = await judged(problem, "c", "rough.c", ROUGH);
    expect(rough.state).toBe("rejected");
    expect(rough.cases[0]).toMatchObject({ state: "wrong_answer" });
    expect(rough.cases[0].stderr).toContain("checker: too far off");
    // The same problem in Python, through the preset.
    const python = "import math\nr = float(input())\nprint(f'{math.pi*r*r:.6f} {2*math.pi*r:.6f}')\n";
    expect(await judged(problem, "python3", "circle.py", python)).toMatchObject({ state: "accepted" });
  }, 240_000);
});

describe("a Kattis package (2023-07 layout)", () => {
  test("an interactive problem: its output validator is the interactor", async () => {
    const imported = await importPackage({
      "problem.yaml":
        "problem_format_version: 2023-07-draft\nname:\n  en: Guess the Number\ntype: interactive\nlimits:\n  time_limit: 1\n  memory: 64\n",
      "statement/problem.en.md": "# Guess the Number\n\nFind the number in 30 guesses.\n",
      "output_validator/guess-interactor.cpp": kattis("guess-interactor.cpp"),
      "data/sample/1.in": "1\n",
      "data/secret/2.in": "777777777\n",
    });
    expect(imported.body.errorCode).toBe("Success");
    expect(imported.one).toMatchObject({
      title: "Guess the Number",
      content: "# Guess the Number\n\nFind the number in 30 guesses.\n",
    });
    const search =
      "#include <stdio.h>\nint main(void){long lo=1,hi=1000000000;char r[4];for(;;){long m=lo+(hi-lo)/2;printf(\"%ld\\n\",m);fflush(stdout);if(scanf(\"%3s\",r)!=1||r[0]=='=')break;if(r[0]=='<')lo=m+1;else hi=m-1;}return 0;}\n";
    expect(await judged(imported.one.id, "c", "guess.c", search)).toMatchObject({
      state: "accepted",
      score: 100,
    });
  }, 240_000);

  test("default validation with float_tolerance becomes the float comparison", async () => {
    const imported = await importPackage({
      "problem.yaml": "name: Halves\nvalidation: default\nvalidator_flags: float_tolerance 1e-6\n",
      "data/secret/1.in": "3\n",
      "data/secret/1.ans": "1.5\n",
    });
    expect(imported.body.errorCode).toBe("Success");
    const config = (
      await t.api.get(`/domains/${cast.domain.id}/problems/${imported.one.id}/configs/latest/json`, {
        token: cast.admin.token,
      })
    ).body.data.data;
    expect(config.languageDefault.caseDefault).toMatchObject({ compare: "float", epsilon: 1e-6, time: "1000ms" });
    const halves = '#include <stdio.h>\nint main(void){double x;scanf("%lf",&x);printf("%.9f\\n",x/2);return 0;}\n';
    expect(await judged(imported.one.id, "c", "half.c", halves)).toMatchObject({ state: "accepted" });
  }, 240_000);
});

describe("names, odd bytes and imports at the same moment", () => {
  const PACKAGE = {
    "problem.yaml": "name:\n  vi: Một nửa · 二分之一\n  en: Halves\nvalidation: default\n",
    // A stray NUL byte in the statement (a text no PostgreSQL column holds): dropped, the rest kept.
    "statement/problem.vi.md": "# Một nửa\u0000 · 二分之一\n\nIn ra một nửa của số đã cho.\n",
    "data/secret/1.in": "3\n",
    "data/secret/1.ans": "1.5\n",
  };

  test("a name and a statement in Vietnamese and Chinese come through; a NUL byte is dropped", async () => {
    const imported = await importPackage(PACKAGE);
    expect(imported.body.errorCode).toBe("Success");
    expect(imported.one).toMatchObject({
      title: "Một nửa · 二分之一",
      content: "# Một nửa · 二分之一\n\nIn ra một nửa của số đã cho.\n",
    });
  }, 60_000);

  test("ten imports of one package under one url at once: one problem, the others refused, nothing half-made", async () => {
    const before = await problemCount();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => importPackage(PACKAGE, cast.admin.token, { url: "halves-once" })),
    );
    expect(answers.filter((a) => a.body.errorCode === "Success")).toHaveLength(1);
    for (const answer of answers) expect(answer.status).toBeLessThan(500);
    expect(await problemCount()).toBe(before + 1);
    const versions = await t.orm.em
      .fork()
      .getConnection()
      .execute(
        "select count(*)::int as n from problem_configs c join problems p on p.id = c.problem_id where p.url = ?",
        ["halves-once"],
      );
    expect(versions[0].n).toBe(1);
  }, 120_000);
});

describe("a Kattis scoring package", () => {
  test("its test groups become subtasks with testdata.yaml's scores, the samples scoring nothing", async () => {
    const imported = await importPackage({
      "problem.yaml":
        "problem_format_version: 2023-07-draft\nname: Doubling\ntype: scoring\nlimits:\n  time_limit: 1\n",
      "data/sample/1.in": "1\n",
      "data/sample/1.ans": "2\n",
      "data/secret/group1/testdata.yaml": "accept_score: 30\n",
      "data/secret/group1/a.in": "2\n",
      "data/secret/group1/a.ans": "4\n",
      "data/secret/group2/testdata.yaml": "accept_score: 70\n",
      "data/secret/group2/a.in": "1500000000\n",
      "data/secret/group2/a.ans": "3000000000\n",
      "data/secret/group2/b.in": "3\n",
      "data/secret/group2/b.ans": "6\n",
    });
    expect(imported.body.errorCode).toBe("Success");
    const id = imported.one.id;
    const config = (
      await t.api.get(`/domains/${cast.domain.id}/problems/${id}/configs/latest/json`, { token: cast.admin.token })
    ).body.data.data;
    expect(config.languageDefault.subtasks).toEqual([
      { score: 30, cases: [1] },
      { score: 70, cases: [2, 3] },
    ]);
    // 32-bit doubling fails the second group only.
    const narrow = '#include <stdio.h>\nint main(void){int x;scanf("%d",&x);printf("%d\\n",x*2);return 0;}\n';
    expect(await judged(id, "c", "double.c", narrow)).toMatchObject({ state: "rejected", score: 30 });
  }, 240_000);
});

describe("a Polygon package with a testlib checker", () => {
  const PROBLEM_XML = `<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem revision="3" short-name="big-sum">
  <names><name language="english" value="Big Sum"/><name language="russian" value="Большая сумма"/></names>
  <judging cpu-name="Intel(R) Core(TM) i3-8100 CPU @ 3.60GHz" cpu-speed="3600" input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>268435456</memory-limit>
      <test-count>3</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests>
        <test method="manual" sample="true"/>
        <test method="manual"/>
        <test method="generated" cmd="gen 1"/>
      </tests>
    </testset>
  </judging>
  <files><resources><file path="files/testlib.h" type="h.g++"/></resources></files>
  <assets>
    <checker name="check.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker>
    <solutions>
      <solution tag="main"><source path="solutions/sum.cpp" type="cpp.g++17"/></solution>
      <solution tag="wrong-answer"><source path="solutions/int32.cpp" type="cpp.g++17"/></solution>
    </solutions>
  </assets>
</problem>
`;
  const PACKAGE = {
    "problem.xml": PROBLEM_XML,
    "files/testlib.h": polygon("testlib.h"),
    "files/check.cpp": polygon("check.cpp"),
    "solutions/sum.cpp": polygon("sum.cpp"),
    "solutions/int32.cpp": polygon("int32.cpp"),
    "tests/01": "1 2\n",
    "tests/01.a": "3\n",
    "tests/02": "2000000000 2000000000\n",
    "tests/02.a": "4000000000\n",
    "tests/03": "-9000000000000000000 8999999999999999999\n",
    "tests/03.a": "-1\n",
  };

  test("64-bit sums: the main solution is accepted, the 32-bit one rejected by the checker", async () => {
    const imported = await importPackage(PACKAGE);
    expect(imported.body.errorCode).toBe("Success");
    expect(imported.one.title).toBe("Big Sum");
    const problem = imported.one.id;
    expect(await judged(problem, "cpp", "sum.cpp", polygon("sum.cpp"))).toMatchObject({
      state: "accepted",
      score: 100,
    });
    const narrow = await judged(problem, "cpp", "int32.cpp", polygon("int32.cpp"));
    expect(narrow.state).toBe("rejected");
    expect(narrow.cases[1]).toMatchObject({ state: "wrong_answer" });
    expect(narrow.cases[1].stderr).toContain("checker: wrong answer expected 4000000000, found -294967296");
    // Its solutions, by their tags, verified the same way.
    const view = await verificationOf(t, cast, problem);
    expect(
      view.results.map((r: { path: string; expected: string; actual: string }) => [r.path, r.expected, r.actual]),
    ).toEqual([
      ["solutions/sum.cpp", "main", "accepted"],
      ["solutions/int32.cpp", "wrong-answer", "wrong_answer"],
    ]);
  }, 240_000);

  test("its file input and output become the cases' fileInput and fileOutput", async () => {
    const imported = await importPackage({
      ...PACKAGE,
      "problem.xml": PROBLEM_XML.replace('input-file="" output-file=""', 'input-file="sum.in" output-file="sum.out"'),
    });
    expect(imported.body.errorCode).toBe("Success");
    const config = (
      await t.api.get(`/domains/${cast.domain.id}/problems/${imported.one.id}/configs/latest/json`, {
        token: cast.admin.token,
      })
    ).body.data.data;
    expect(config.languageDefault.caseDefault).toMatchObject({
      fileInput: "sum.in",
      fileOutput: "sum.out",
      time: "1000ms",
      memory: "256m",
    });
    const files =
      '#include <stdio.h>\nint main(void){long long a,b;FILE*i=fopen("sum.in","r"),*o=fopen("sum.out","w");fscanf(i,"%lld %lld",&a,&b);fprintf(o,"%lld\\n",a+b);return 0;}\n';
    expect(await judged(imported.one.id, "c", "sum.c", files)).toMatchObject({ state: "accepted" });
  }, 240_000);

  test("a generated test that is not in the package is refused, naming it, and nothing is created", async () => {
    const before = await problemCount();
    const { "tests/03": _, ...without } = PACKAGE;
    const refused = await importPackage(without);
    expect(refused.body.errorCode).toBe("FileValidationError");
    expect(refused.body.errorMsg).toContain("test 3 is generated and tests/03 is not in the package");
    expect(await problemCount()).toBe(before);
  }, 60_000);
});

describe("export as a Kattis package", () => {
  const configOf = async (problem: string) =>
    (await t.api.get(`/domains/${cast.domain.id}/problems/${problem}/configs/latest/json`, { token: cast.admin.token }))
      .body.data.data;
  const exported = (problem: string, token = cast.admin.token) =>
    t.app.handle(
      new Request(`http://localhost/api/v1/domains/${cast.domain.id}/problems/${problem}/package?format=kattis`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
  /** A case's data by content, so that renamed files compare equal. */
  const dataOf = async (problem: string) => {
    const config = await configOf(problem);
    // The latest version's files by path, read from the blob store by their checksums.
    const ls = `/domains/${cast.domain.id}/problems/${problem}/configs/latest/ls?amount=1000`;
    const objects = (await t.api.get(ls, { token: cast.admin.token })).body.data.results as {
      path: string;
      checksum: string;
    }[];
    const digest = new Map(objects.map((o) => [o.path, o.checksum]));
    const read = async (path: string | undefined) =>
      path && digest.has(path) ? new TextDecoder().decode(await t.store.get(digest.get(path)!)) : null;
    const cases = [];
    for (const c of config.languageDefault.cases)
      cases.push({
        input: await read(c.executeInputFile),
        answer: await read(c.executeOutputFile),
        category: c.category,
        score: c.score,
      });
    return { caseDefault: config.languageDefault.caseDefault, subtasks: config.languageDefault.subtasks, cases };
  };

  test("exporting and importing again gives the same cases, limits and validator", async () => {
    const original = (await importPackage(LEGACY)).one.id;
    const response = await exported(original);
    expect(response.headers.get("content-type")).toBe("application/zip");
    const again = await importPackage(new Uint8Array(await response.arrayBuffer()));
    expect(again.body.errorCode).toBe("Success");
    expect(again.one).toMatchObject({ title: "Circle Facts" });
    expect(again.one.content).toContain("print the area and the circumference");
    const [before, after] = [await dataOf(original), await dataOf(again.one.id)];
    expect(before.cases.map((c) => [c.input, c.answer])).toEqual([
      ["1\n", "3.14159265 6.28318531\n"],
      ["2.5\n", "19.63495408 15.70796327\n"],
      ["10\n", "314.15926536 62.83185307\n"],
    ]);
    expect(after.cases).toEqual(before.cases);
    const { checker: was, ...limitsBefore } = before.caseDefault;
    const { checker: is, ...limitsAfter } = after.caseDefault;
    expect(limitsAfter).toEqual(limitsBefore);
    expect([is.protocol, is.flags, is.compileArgs.length]).toEqual([was.protocol, was.flags, was.compileArgs.length]);
    // And it judges the same way.
    expect(await judged(again.one.id, "c", "rough.c", ROUGH)).toMatchObject({ state: "rejected" });
  }, 240_000);

  test("a scoring problem's subtasks go out as groups and come back the same", async () => {
    const original = (
      await importPackage({
        "problem.yaml": "name: Groups\ntype: scoring\n",
        "data/secret/easy/testdata.yaml": "accept_score: 40\n",
        "data/secret/easy/1.in": "1\n",
        "data/secret/easy/1.ans": "1\n",
        "data/secret/hard/testdata.yaml": "accept_score: 60\n",
        "data/secret/hard/1.in": "2\n",
        "data/secret/hard/1.ans": "2\n",
      })
    ).one.id;
    const again = await importPackage(new Uint8Array(await (await exported(original)).arrayBuffer()));
    expect(again.body.errorCode).toBe("Success");
    expect(await dataOf(again.one.id)).toEqual(await dataOf(original));
  }, 60_000);

  test("what Kattis cannot say is refused, and students may not export", async () => {
    const polygonLike = await importPackage({
      "problem.xml":
        '<problem short-name="x"><names><name language="english" value="X"/></names><judging><testset name="tests"><test-count>1</test-count><tests><test method="manual"/></tests></testset></judging><assets><checker type="testlib"><source path="files/check.cpp"/></checker></assets></problem>',
      "files/check.cpp": polygon("check.cpp"),
      "files/testlib.h": polygon("testlib.h"),
      "tests/01": "1 2\n",
      "tests/01.a": "3\n",
    });
    expect(polygonLike.body.errorCode).toBe("Success");
    const refused = (await (await exported(polygonLike.one.id)).json()) as {
      errorCode: string;
      errorMsg: string;
    };
    expect(refused.errorCode).toBe("FileDownloadError");
    expect(refused.errorMsg).toContain("its checker speaks testlib's protocol, not Kattis's (42/43)");
    expect((await exported(polygonLike.one.id, cast.member.token)).status).toBe(403);
  }, 60_000);
});

describe("what is not a package", () => {
  test.each([
    [
      "random files",
      { "notes.txt": "hello\n", "a/b.c": "int main(){}\n" },
      "not a package this judge reads: Kattis (problem.yaml and data/), Polygon (problem.xml), Hydro",
    ],
    [
      "problem.yaml that is not YAML",
      { "problem.yaml": "name: [unclosed\n", "data/secret/1.in": "1\n" },
      "problem.yaml is not valid YAML",
    ],
    [
      "a Kattis package without tests",
      { "problem.yaml": "name: Empty\n", "data/README": "none\n" },
      "data/ holds no .in file",
    ],
    [
      "an interactive problem without its validator",
      { "problem.yaml": "name: X\nvalidation: custom interactive\n", "data/secret/1.in": "1\n" },
      "an interactive problem needs its output validator",
    ],
    ["problem.xml that is not XML", { "problem.xml": "<problem><judging>" }, "problem.xml"],
    [
      "a config archive",
      { "config.json": "{}", "problem.yaml": "name: X\n", "data/secret/1.in": "1\n" },
      "this is a config archive",
    ],
  ])(
    "%s: FileValidationError with a clear message, nothing created",
    async (_, files, message) => {
      const before = await problemCount();
      const refused = await importPackage(files as Record<string, string>);
      expect(refused.body.errorCode).toBe("FileValidationError");
      expect(refused.body.errorMsg).toContain(message);
      expect(await problemCount()).toBe(before);
    },
    60_000,
  );

  test.each([
    [
      "zip-slip",
      () =>
        rawZip([
          { name: "problem.yaml", data: "name: X\n" },
          { name: "../../evil.in", data: "1\n" },
        ]),
      "evil",
    ],
    [
      "a zip bomb",
      () =>
        rawZip([
          { name: "problem.yaml", data: "name: X\n" },
          { name: "data/secret/1.in", deflated: deflatedZeros(100), claimedSize: 100 },
        ]),
      "data/secret/1.in",
    ],
    [
      "a symlink to a secret",
      () =>
        tarOf([
          { name: "problem.yaml", data: "name: X\n" },
          { name: "data/secret/1.ans", type: "symlink", linkname: "/etc/shadow" },
        ]),
      "1.ans",
    ],
  ])(
    "a hostile archive (%s) is refused as a config upload is, and nothing is created",
    async (_, build, named) => {
      const before = await problemCount();
      const refused = await importPackage(new Uint8Array(await build()));
      expect(refused.body.errorCode).toBe("FileValidationError");
      expect(refused.body.errorMsg).toContain(named);
      expect(await problemCount()).toBe(before);
    },
    60_000,
  );

  test("a student or a guest may not import", async () => {
    for (const who of [cast.member, cast.guest]) {
      const refused = await importPackage(LEGACY, who.token);
      expect(refused.status).toBe(403);
    }
  }, 60_000);
});
