import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { archiveOf } from "../helpers/archive-builders";
import { judgeStack, type JudgeStack } from "../helpers/judging";
import { judgedRecord, uploadPackage, verificationOf } from "../helpers/packages";

// Packages from HUSTOJ (FPS) and Hydro, of our own in their real layouts, imported over HTTP; their shipped
// solutions verified and programs judged by the real judge.
const UID_BASE = 74_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;
const polygon = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/polygon", name), "utf8");

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

const importFile = async (bytes: Buffer | string, name: string) => (await uploadPackage(t, cast, { bytes, name })).body;
const verified = (problem: string) => verificationOf(t, cast, problem);
const judged = (problem: string, language: string, file: string, source: string) =>
  judgedRecord(t, cast, problem, { language, file, source });

const cdata = (text: string) => `<![CDATA[${text}]]>`;
// HUSTOJ's special judge: spj input answer output, exit 0 accepted; here, averages within 1e-6.
const SPJ = `#include <math.h>
#include <stdio.h>
int main(int argc, char **argv) {
  FILE *answer = fopen(argv[2], "r"), *output = fopen(argv[3], "r");
  double want, got;
  if (!answer || !output || fscanf(answer, "%lf", &want) != 1) return 2;
  if (fscanf(output, "%lf", &got) != 1) { printf("no number\\n"); return 1; }
  if (fabs(want - got) > 1e-6) { printf("expected %.9f, got %.9f\\n", want, got); return 1; }
  return 0;
}
`;
const AVERAGE_C =
  '#include <stdio.h>\nint main(void){double a,b;scanf("%lf %lf",&a,&b);printf("%.8f\\n",(a+b)/2);return 0;}\n';
const ECHO_CPP =
  "#include <iostream>\n#include <string>\nint main(){std::string s;std::getline(std::cin,s);std::cout<<s<<'\\n';}\n";
const FPS = `<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.2" url="https://github.com/zhblue/freeproblemset/">
  <generator name="HUSTOJ" url="https://github.com/zhblue/hustoj/"/>
  <item>
    <title>${cdata("两数平均")}</title>
    <time_limit unit="s">${cdata("1")}</time_limit>
    <memory_limit unit="mb">${cdata("128")}</memory_limit>
    <description>${cdata("<p>给定两个实数 <b>a</b> 和 <b>b</b>，输出它们的平均数。</p>")}</description>
    <input>${cdata("<p>一行两个实数。</p>")}</input>
    <output>${cdata("<p>平均数，误差不超过 10<sup>-6</sup>。</p>")}</output>
    <sample_input>${cdata("1 2\n")}</sample_input>
    <sample_output>${cdata("1.5\n")}</sample_output>
    <test_input>${cdata("3 4\n")}</test_input>
    <test_output>${cdata("3.5\n")}</test_output>
    <test_input>${cdata("-1000000 0.5\n")}</test_input>
    <test_output>${cdata("-499999.75\n")}</test_output>
    <hint>${cdata("<p>注意精度。</p>")}</hint>
    <source>${cdata("校赛 2025")}</source>
    <spj language="C">${cdata(SPJ)}</spj>
    <solution language="C">${cdata(AVERAGE_C)}</solution>
    <solution language="Pascal">${cdata("var a,b:real; begin readln(a,b); writeln((a+b)/2:0:8); end.\n")}</solution>
  </item>
  <item>
    <title>${cdata("Echo")}</title>
    <time_limit unit="ms">${cdata("500")}</time_limit>
    <memory_limit unit="kb">${cdata("65536")}</memory_limit>
    <description>${cdata("<p>Print the line you are given.</p>")}</description>
    <sample_input>${cdata("hello\n")}</sample_input>
    <sample_output>${cdata("hello\n")}</sample_output>
    <test_input>${cdata("你好，世界\n")}</test_input>
    <test_output>${cdata("你好，世界\n")}</test_output>
    <solution language="C++">${cdata(ECHO_CPP)}</solution>
  </item>
</fps>
`;

describe("an FPS file of two problems", () => {
  test("each item a problem, the special judge a HUSTOJ checker, the solutions verified", async () => {
    const answer = await importFile(FPS, "contest.xml");
    expect(answer.errorCode).toBe("Success");
    expect(answer.data.count).toBe(2);
    const [average, echo] = answer.data.results;
    expect(average).toMatchObject({ title: "两数平均", format: "fps", submissions: 2, skipped: 1 });
    expect(average.content).toContain("输出它们的平均数");
    expect(echo).toMatchObject({ title: "Echo", submissions: 1, skipped: 0 });
    const config = (
      await t.api.get(`/domains/${cast.domain.id}/problems/${average.id}/configs/latest/json`, {
        token: cast.admin.token,
      })
    ).body.data.data;
    expect(config.languageDefault.caseDefault).toMatchObject({
      time: "1000ms",
      memory: "128m",
      checker: { protocol: "hustoj" },
    });
    const view = await verified(average.id);
    expect(view).toMatchObject({ count: 2, mismatches: 0, pending: 0, skipped: 1 });
    expect(view.results.map((r: any) => [r.expected, r.language, r.actual, r.matches])).toEqual([
      ["solution", "c", "accepted", true],
      ["solution", null, null, null],
    ]);
    expect(view.results[1].skipped).toBe("declared Pascal, which no language preset here runs");
    expect(await verified(echo.id)).toMatchObject({ count: 1, mismatches: 0, pending: 0 });
  }, 240_000);

  test("the special judge's wrong answer carries its message", async () => {
    const answer = await importFile(FPS, "again.xml");
    const average = answer.data.results[0];
    const rounded =
      '#include <stdio.h>\nint main(void){double a,b;scanf("%lf %lf",&a,&b);printf("%.1f\\n",(a+b)/2);return 0;}\n';
    const record = await judged(average.id, "c", "rounded.c", rounded);
    expect(record.state).toBe("rejected");
    expect(record.cases[2]).toMatchObject({ state: "wrong_answer" });
    expect(record.cases[2].stderr).toContain("checker: expected -499999.750000000, got -499999.800000000");
  }, 240_000);
});

const HYDRO = {
  "problem.yaml": "title: 大数求和 Big Sums\ntag:\n  - 入门\n  - big numbers\n",
  "problem_zh.md": "# 大数求和\n\n输出两个整数的和。\n",
  "problem_en.md": "# Big Sums\n\nPrint the sum of two integers.\n\n![ranges](file://ranges.txt)\n",
  "additional_file/ranges.txt": "-9e18 ≤ a, b ≤ 9e18\n",
  "testdata/config.yaml": [
    "type: default",
    "time: 1s",
    "memory: 128m",
    "checker_type: testlib",
    "checker: chk.cc",
    "subtasks:",
    "  - id: 1",
    "    score: 30",
    "    type: min",
    "    cases:",
    "      - {input: 1.in, output: 1.out}",
    "      - {input: 2.in, output: 2.out}",
    "  - id: 2",
    "    score: 70",
    "    type: sum",
    "    if: [1]",
    "    cases:",
    "      - {input: 3.in, output: 3.out}",
    "      - {input: 4.in, output: 4.out}",
    "",
  ].join("\n"),
  "testdata/chk.cc": polygon("check.cpp"),
  "testdata/testlib.h": polygon("testlib.h"),
  "testdata/1.in": "1 2\n",
  "testdata/1.out": "3\n",
  "testdata/2.in": "-5 5\n",
  "testdata/2.out": "0\n",
  "testdata/3.in": "2000000000 2000000000\n",
  "testdata/3.out": "4000000000\n",
  "testdata/4.in": "7 8\n",
  "testdata/4.out": "15\n",
  "std/sum.cpp": polygon("sum.cpp"),
};

describe("a Hydro zip with subtasks and a testlib checker", () => {
  test("subtasks with their scores and dependency, the English statement, its file, std verified", async () => {
    const answer = await importFile(await archiveOf("zip", HYDRO), "big-sums.zip");
    expect(answer.errorCode).toBe("Success");
    const problem = answer.data.results[0];
    expect(problem).toMatchObject({ title: "大数求和 Big Sums", format: "hydro", submissions: 1 });
    expect(problem.content).toContain("Print the sum of two integers.");
    expect(problem.attachments).toEqual([
      expect.objectContaining({ name: "ranges.txt", size: Buffer.byteLength(HYDRO["additional_file/ranges.txt"]) }),
    ]);
    expect(problem.content).toContain(`(${problem.attachments[0].url})`);
    expect(problem.notes.join("\n")).toContain("problem_zh.md kept among the files");
    const view = await verified(problem.id);
    expect(view).toMatchObject({ count: 1, mismatches: 0, pending: 0 });
    expect(view.results[0]).toMatchObject({ path: "std/sum.cpp", actual: "accepted", matches: true });
    // 32-bit sums: the first subtask (30) and the small case of the second (35 of its 70).
    const narrow = await judged(problem.id, "cpp", "int32.cpp", polygon("int32.cpp"));
    expect(narrow).toMatchObject({ state: "rejected", score: 65 });
    expect(narrow.cases[2].stderr).toContain("checker: wrong answer expected 4000000000, found -294967296");
  }, 240_000);
});
