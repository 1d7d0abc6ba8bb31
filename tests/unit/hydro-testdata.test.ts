import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { subtasksFromNames } from "../../src/modules/problem-packages/hydro/hydro-case-names";
import { readHydro } from "../../src/modules/problem-packages/hydro/hydro-package";
import { hydroMemoryMb, hydroTimeMs, shares } from "../../src/modules/problem-packages/hydro/hydro-testdata";
import { bytes } from "../helpers/hydro-packages";

// Hydro's testdata/config.yaml and its file-name rules, as Hydro's judge reads them, on data of our own.

const problemOf = (config: string | null, names: string[]) => {
  const files = new Map([
    ["problem.yaml", bytes("title: Sums\n")],
    ["problem.md", bytes("Add them up.\n")],
    ...names.map((n) => [`testdata/${n}`, bytes(`${n}\n`)] as [string, Uint8Array]),
  ]);
  if (config !== null) files.set("testdata/config.yaml", bytes(config));
  const [problem] = readHydro(files);
  return problem;
};
const pairs = (...stems: string[]) => stems.flatMap((s) => [`${s}.in`, `${s}.out`]);
const caseList = (ids: string[]) => ids.map((id) => `      - { input: ${id}.in, output: ${id}.out }`).join("\n");

describe("cases found by file names when config.yaml lists none", () => {
  test("a1.in … a10.ans in number order, one sum subtask of 100 shared out, Hydro's default limits", () => {
    const problem = problemOf(null, ["a10.in", "a10.ans", "a2.in", "a2.out", "a1.in", "a1.out", "sample.in"]);
    expect(problem.cases).toEqual([
      { input: "testdata/a1.in", answer: "testdata/a1.out", category: "secret", group: null, score: 33 },
      { input: "testdata/a2.in", answer: "testdata/a2.out", category: "secret", group: null, score: 33 },
      { input: "testdata/a10.in", answer: "testdata/a10.ans", category: "secret", group: null, score: 34 },
    ]);
    expect(problem).toMatchObject({ timeMs: 1000, memoryMb: 256 });
  });

  test("a number before - or _ is a subtask, scored min: each a group sharing 100", () => {
    const problem = problemOf("time: 2s\n", ["1_1.in", "1_1.out", "1_2.in", "1_2.out", "2-1.in", "2-1.ans"]);
    expect(problem.cases.map((c) => [c.input, c.group])).toEqual([
      ["testdata/1_1.in", "1"],
      ["testdata/1_2.in", "1"],
      ["testdata/2-1.in", "2"],
    ]);
    expect(problem.groupScores).toEqual(
      new Map([
        ["1", 50],
        ["2", 50],
      ]),
    );
    expect(problem.timeMs).toBe(2000);
  });

  test("Hydro's other spellings: input1.txt with output1.txt, data.in1 with data.ou1, 3-big.in", () => {
    const names = ["input1.txt", "output1.txt", "data.in1", "data.ou1", "3-big.in", "3-big.out", "x.in", "x.out"];
    expect(subtasksFromNames(names)).toEqual([
      {
        id: 1,
        type: "sum",
        cases: [
          { input: "3-big.in", output: "3-big.out", id: 3 },
          { input: "data.in1", output: "data.ou1", id: Number.NaN },
          { input: "input1.txt", output: "output1.txt", id: 1 },
        ],
      },
    ]);
  });

  test("subfolders of testdata/ are read as Hydro's import flattens them", () => {
    const problem = problemOf(null, ["input/1.in", "output/1.out"]);
    expect(problem.cases.map((c) => [c.input, c.answer])).toEqual([["testdata/input/1.in", "testdata/output/1.out"]]);
  });
});

describe("scores as Hydro's judge shares them", () => {
  test("subtasks without a score share what the others leave of 100, the last ones a point more", () => {
    const config = `subtasks:
  - score: 40
    cases:
${caseList(["1"])}
  - cases:
${caseList(["2"])}
  - cases:
${caseList(["3"])}
  - cases:
${caseList(["4"])}
`;
    const problem = problemOf(config, pairs("1", "2", "3", "4"));
    expect([...problem.groupScores.values()]).toEqual([40, 20, 20, 20]);
    expect(shares(100, 3)).toEqual([33, 33, 34]);
    expect(shares(20, 6)).toEqual([3, 3, 3, 3, 4, 4]);
  });

  test("a sum subtask named in an `if` makes each of its cases a group of its own, so the dependency holds", () => {
    const config = `subtasks:
  - id: 1
    type: sum
    score: 20
    cases:
${caseList(["1", "2", "3"])}
  - id: 2
    score: 80
    if: [1]
    cases:
${caseList(["4"])}
`;
    const problem = problemOf(config, pairs("1", "2", "3", "4"));
    expect(problem.cases.map((c) => [c.group, c.score])).toEqual([
      ["1.1", undefined],
      ["1.2", undefined],
      ["1.3", undefined],
      ["2", undefined],
    ]);
    expect(problem.groupScores).toEqual(
      new Map([
        ["1.1", 6],
        ["1.2", 7],
        ["1.3", 7],
        ["2", 80],
      ]),
    );
    expect(problem.groupDependsOn).toEqual(new Map([["2", ["1.1", "1.2", "1.3"]]]));
  });

  test("an `if` naming no subtask is dropped, as Hydro ignores it; max is a group, noted as stricter", () => {
    const config = `subtasks:
  - type: max
    score: 30
    cases:
${caseList(["1", "2"])}
  - score: 70
    if: [0]
    cases:
${caseList(["3"])}
`;
    const problem = problemOf(config, pairs("1", "2", "3"));
    expect(problem.groupDependsOn).toEqual(new Map());
    expect(problem.groupScores).toEqual(
      new Map([
        ["1", 30],
        ["2", 70],
      ]),
    );
    expect(problem.notes).toContain(
      "testdata/config.yaml: subtasks[1].if names subtask 0, which is none (ids: 1, 2); Hydro ignores it",
    );
    expect(problem.notes).toContain(
      "testdata/config.yaml: subtasks[0] is scored `max` (one passing case earns its 30 points in Hydro): " +
        "here every case must pass",
    );
  });

  test("the old `cases` list is one sum subtask of 100; its `score` is not used, as by Hydro's judge", () => {
    const problem = problemOf(`score: 10\ncases:\n${caseList(["1", "2", "3", "4"])}\n`, pairs("1", "2", "3", "4"));
    expect(problem.cases.map((c) => c.score)).toEqual([25, 25, 25, 25]);
    expect(problem.notes).toContain(
      "testdata/config.yaml: score is not used (nor by Hydro's judge): the cases share 100",
    );
  });

  test("property: a sum subtask's case scores add up to its score, whatever the score and the case count", () => {
    const subtask = fc.record({ score: fc.integer({ min: 1, max: 1000 }), count: fc.integer({ min: 1, max: 30 }) });
    fc.assert(
      fc.property(fc.array(subtask, { minLength: 1, maxLength: 4 }), (subtasks) => {
        const ids = subtasks.map((s, i) => Array.from({ length: s.count }, (_, j) => `${i + 1}-${j + 1}`));
        const config = `subtasks:\n${subtasks
          .map((s, i) => `  - type: sum\n    score: ${s.score}\n    cases:\n${caseList(ids[i])}`)
          .join("\n")}\n`;
        const problem = problemOf(config, pairs(...ids.flat()));
        subtasks.forEach((s, i) => {
          const own = problem.cases.filter((c) => c.input.startsWith(`testdata/${i + 1}-`)).map((c) => c.score!);
          expect(own).toHaveLength(s.count);
          expect(own.reduce((a, b) => a + b, 0)).toBe(s.score);
          expect(Math.max(...own) - Math.min(...own)).toBeLessThanOrEqual(1);
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe("limits in Hydro's units", () => {
  test.each([
    ["1s", 1000],
    ["1.5s", 1500],
    ["500ms", 500],
    ["250MS", 250],
    [2000, 2000],
    ["3000", 3000],
  ])("time %j is %d ms", (value, ms) => {
    expect(hydroTimeMs(value, "time")).toBe(ms);
  });

  test.each([
    ["256m", 256],
    ["512MB", 512],
    ["1g", 1024],
    ["65536k", 64],
    ["1000k", 1],
    [128, 128],
  ])("memory %j is %d MB", (value, mb) => {
    expect(hydroMemoryMb(value, "memory")).toBe(mb);
  });

  test("a subtask's own limits: the problem takes the largest, and a note says how they differ", () => {
    const config = `time: 1s
memory: 128m
subtasks:
  - cases:
${caseList(["1", "2"])}
  - time: 3s
    memory: 512m
    cases:
${caseList(["3"])}
`;
    const problem = problemOf(config, pairs("1", "2", "3"));
    expect(problem).toMatchObject({ timeMs: 3000, memoryMb: 512 });
    expect(problem.notes).toContain(
      "time limits differ by case (1000 ms for 2, 3000 ms for 1): every case gets the largest, 3000 ms",
    );
    expect(problem.notes).toContain(
      "memory limits differ by case (128 MB for 2, 512 MB for 1): every case gets the largest, 512 MB",
    );
  });
});
