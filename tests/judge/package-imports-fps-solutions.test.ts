import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cdata, fpsFile, fpsItem } from "../helpers/big-packages";
import type { Cast } from "../helpers/domain-factories";
import { judgeStack, type JudgeStack } from "../helpers/judging";
import { uploadPackage, verificationOf } from "../helpers/packages";
import type { TestApp } from "../helpers/spawn-app";

// An FPS item as a HUSTOJ teacher exports a "write the function" problem: <prepend> and <append> wrap what
// students submit, and the item's own <solution>s are whole programs, each judged as written in its language.
const UID_BASE = 77_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

const SOLUTIONS: [string, string][] = [
  ["C", '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n'],
  [
    "C++",
    "#include <iostream>\nint add(int a,int b){return a+b;}\nint main(){int a,b;std::cin>>a>>b;std::cout<<add(a,b)<<'\\n';}\n",
  ],
  [
    "Java",
    "import java.util.*;\npublic class Main {\n  static int add(int a, int b) { return a + b; }\n" +
      "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n" +
      "    System.out.println(add(in.nextInt(), in.nextInt()));\n  }\n}\n",
  ],
  ["Python", "a, b = map(int, input().split())\nprint(a + b)\n"],
];
const WRAPPERS = ["Java", "C++"].flatMap((language) => [
  `<prepend language="${language}">${cdata(language === "Java" ? "import java.util.*;\n" : "#include <iostream>\n")}</prepend>`,
  `<template language="${language}">${cdata("// write add(a, b) here\n")}</template>`,
  `<append language="${language}">${cdata("// HUSTOJ's main, around the student's add\n")}</append>`,
]);

describe("an FPS item with <prepend> and <append> and solutions in four languages", () => {
  test("every solution is judged as written and accepted; none is skipped", async () => {
    const solutions = SOLUTIONS.map(
      ([language, source]) => `<solution language="${language}">${cdata(source)}</solution>`,
    );
    const xml = fpsFile([fpsItem({ title: "add(a, b)", extra: [...WRAPPERS, ...solutions].join("\n") })]);

    const { body } = await uploadPackage(t, cast, { bytes: xml, name: "function.xml" });

    expect(body.errorCode).toBe("Success");
    const [problem] = body.data.results;
    expect(problem).toMatchObject({ submissions: 4, skipped: 0 });
    const view = await verificationOf(t, cast, problem.id);
    expect(view).toMatchObject({ count: 4, mismatches: 0, pending: 0, skipped: 0 });
    expect(view.results.map((r: { language: string; actual: string }) => [r.language, r.actual])).toEqual([
      ["c", "accepted"],
      ["cpp", "accepted"],
      ["java", "accepted"],
      ["python3", "accepted"],
    ]);
    expect(problem.notes.join("\n")).toContain("<prepend>, <template>, <append> code not imported");
  }, 240_000);
});
