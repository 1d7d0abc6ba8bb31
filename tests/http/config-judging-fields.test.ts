import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { archiveOf } from "../helpers/archive-builders";
import { ProblemConfig } from "../../src/modules/problem-configs/problem-config.entity";

// The judge's own config.json fields (checker, interactor, compare, epsilon, subtasks, scoring): refused on upload,
// through both ways a config.json arrives, with FileValidationError naming the field, and nothing stored.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
});
afterAll(() => t.close());

const CHECKER = {
  files: ["checker.cpp", "testlib.h"],
  compileArgs: ["g++", "-o", "checker", "checker.cpp"],
  executeArgs: ["./checker"],
};
const configWith = (fields: object) => ({
  languages: [
    {
      name: "cpp",
      compileFiles: ["main.cpp"],
      compileArgs: ["g++", "main.cpp"],
      cases: [
        { executeInputFile: "1.in", executeOutputFile: "1.out" },
        { executeInputFile: "1.in", executeOutputFile: "1.out" },
      ],
      ...fields,
    },
  ],
});
// case.in and case.out: what a case that names no files reads (Horse's defaults).
const FILES = {
  "1.in": "1 2\n",
  "1.out": "3\n",
  "case.in": "1 2\n",
  "case.out": "3\n",
  "checker.cpp": "int main() {}\n",
  "testlib.h": "// testlib\n",
};
const base = (problem: string) => `/domains/${cast.domain.id}/problems/${problem}/configs`;

async function problemWithVersion(): Promise<string> {
  const problem = (
    await t.api.post(`/domains/${cast.domain.id}/problems`, { title: "Permutations" }, { token: cast.owner.token })
  ).body.data.id as string;
  expect((await upload(problem, configWith({ checker: CHECKER }), FILES)).errorCode).toBe("Success");
  return problem;
}

async function upload(problem: string, config: object, files: Record<string, string>) {
  const form = new FormData();
  form.append(
    "file",
    new Blob([await archiveOf("zip", { "config.json": JSON.stringify(config), ...files })]),
    "config.zip",
  );
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${base(problem)}`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${cast.owner.token}` },
    }),
  );
  return (await response.json()) as { errorCode: string; errorMsg: string | null };
}

const versions = (problem: string) => t.orm.em.fork().count(ProblemConfig, { problem });

const REFUSED: [string, object, Record<string, string>, string][] = [
  ["an unknown comparison", configWith({ compare: "fuzzy" }), FILES, '/languages/0/compare: unknown value "fuzzy"'],
  ["epsilon out of range", configWith({ compare: "float", epsilon: 0 }), FILES, "/languages/0/epsilon"],
  [
    "epsilon without float",
    configWith({ cases: [{ epsilon: 1e-6 }] }),
    FILES,
    '/languages/0/cases/0: "epsilon" applies only to "compare": "float"',
  ],
  [
    "float without epsilon",
    configWith({ caseDefault: { compare: "float" } }),
    FILES,
    '/languages/0/caseDefault: "compare": "float" needs an "epsilon"',
  ],
  [
    "a checker file missing from the archive",
    configWith({ checker: { ...CHECKER, files: ["checker.cpp", "testlib.hpp"] } }),
    FILES,
    '/languages/0/checker/files/1: "testlib.hpp" is not in the config archive',
  ],
  [
    "a case's input missing from the archive",
    configWith({
      cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out" }, { executeInputFile: "data/4.in" }],
    }),
    FILES,
    '/languages/0/cases/1/executeInputFile: "data/4.in" is not in the config archive',
  ],
  [
    "a case's expected output missing from the archive (named in caseDefault)",
    configWith({ caseDefault: { executeOutputFile: "answers/1.out" }, cases: [{}] }),
    FILES,
    '/languages/0/cases/0/executeOutputFile: "answers/1.out" is not in the config archive',
  ],
  [
    "a subtask case out of range",
    configWith({ subtasks: [{ score: 100, cases: [0, 2] }] }),
    FILES,
    "/languages/0/subtasks/0/cases/1: case 2 does not exist",
  ],
  [
    "a case in two subtasks",
    configWith({
      subtasks: [
        { score: 50, cases: [0, 1] },
        { score: 50, cases: [1] },
      ],
    }),
    FILES,
    "case 1 is already in subtask 0",
  ],
  [
    "a dependency on itself",
    configWith({ subtasks: [{ score: 100, cases: [0], depends_on: [0] }] }),
    FILES,
    "/languages/0/subtasks/0/dependsOn/0: a subtask cannot depend on itself",
  ],
  [
    "a dependency out of range",
    configWith({ subtasks: [{ score: 100, cases: [0], dependsOn: [3] }] }),
    FILES,
    "subtask 3 does not exist",
  ],
  [
    "a dependency cycle",
    configWith({
      subtasks: [
        { score: 50, cases: [0], dependsOn: [1] },
        { score: 50, cases: [1], dependsOn: [0] },
      ],
    }),
    FILES,
    "subtasks 0 → 1 → 0 depend on each other in a cycle",
  ],
  ["an unknown preset", configWith({ preset: "cobol" }), FILES, '/languages/0/preset: unknown preset "cobol"'],
  ["a misspelt field", configWith({ compileArgz: ["g++"] }), FILES, "/languages/0/compileArgz: unknown field"],
  [
    "an unknown field in a case",
    configWith({ cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out", time_limit: "2s" }] }),
    FILES,
    "/languages/0/cases/0/time_limit: unknown field",
  ],
  [
    "an unknown field in a checker",
    configWith({ checker: { ...CHECKER, timeout: "5s" } }),
    FILES,
    "/languages/0/checker/timeout: unknown field",
  ],
  [
    "an unknown field at the top",
    { ...configWith({}), language_defaults: {} },
    FILES,
    "/language_defaults: unknown field",
  ],
  [
    "an unknown field in languageDefault's caseDefault",
    { ...configWith({}), language_default: { case_default: { memory_limit: "1g" } } },
    FILES,
    "/language_default/case_default/memory_limit: unknown field",
  ],
  [
    "an interactor file missing from the archive",
    configWith({ caseDefault: { interactor: { ...CHECKER, files: ["interactor.cpp"] } } }),
    FILES,
    '/languages/0/caseDefault/interactor/files/0: "interactor.cpp" is not in the config archive',
  ],
  [
    "an interactive case with file input",
    configWith({ caseDefault: { interactor: CHECKER }, cases: [{ executeInputFile: "1.in", fileInput: "in.txt" }] }),
    FILES,
    '/languages/0/cases/0: an interactive case cannot have "fileInput"',
  ],
  [
    "an interactive case in the output-only preset",
    configWith({ preset: "output-only", cases: [{ submittedOutput: "1.txt", interactor: CHECKER }] }),
    FILES,
    '/languages/0/cases/0: an interactive case cannot have "submittedOutput"',
  ],
  [
    "an unknown field in an interactor",
    configWith({ caseDefault: { interactor: { ...CHECKER, kind: "kattis" } } }),
    FILES,
    "/languages/0/caseDefault/interactor/kind: unknown field",
  ],
  [
    "an unknown checker protocol",
    configWith({ checker: { ...CHECKER, protocol: "polygon" } }),
    FILES,
    '/languages/0/checker/protocol: unknown value "polygon" (one of "testlib", "kattis", "hustoj")',
  ],
  [
    "an interactor without its command",
    configWith({ caseDefault: { interactor: { files: ["checker.cpp"] } } }),
    FILES,
    "/languages/0/caseDefault/interactor/executeArgs",
  ],
  [
    "an unknown scoring",
    configWith({ scoring: "best" }),
    FILES,
    '/languages/0/scoring: unknown value "best" (one of "all", "min")',
  ],
];

describe("an archive upload with a bad judging field is refused and changes nothing", () => {
  test.each(REFUSED)("%s", async (_, config, files, fragment) => {
    const problem = await problemWithVersion();
    const response = await upload(problem, config, files);
    expect(response.errorCode).toBe("FileValidationError");
    expect(response.errorMsg).toContain(fragment);
    expect(await versions(problem)).toBe(1);
  });
});

describe("configs/json with a bad judging field", () => {
  test("business rules are FileValidationError, the archive's files count for the checker, nothing changes", async () => {
    const problem = await problemWithVersion();
    const post = (config: object) => t.api.post(`${base(problem)}/json`, config, { token: cast.owner.token });
    const missing = await post(configWith({ checker: { ...CHECKER, files: ["checker2.cpp"] } }));
    expect(missing.body.errorCode).toBe("FileValidationError");
    expect(missing.body.errorMsg).toContain('"checker2.cpp" is not in the config archive');
    const cycle = await post(
      configWith({
        subtasks: [
          { score: 50, cases: [0], dependsOn: [1] },
          { score: 50, cases: [1], dependsOn: [0] },
        ],
      }),
    );
    expect(cycle.body.errorCode).toBe("FileValidationError");
    expect(await versions(problem)).toBe(1);
    // An unknown field or preset: refused with its path here too.
    for (const [fields, fragment] of [
      [{ compileArgz: ["g++"] }, "/languages/0/compileArgz: unknown field"],
      [{ preset: "cobol" }, '/languages/0/preset: unknown preset "cobol"'],
    ] as const) {
      const unknown = await post(configWith(fields));
      expect(unknown.body.errorCode).toBe("FileValidationError");
      expect(unknown.body.errorMsg).toContain(fragment);
    }
    // Wrong types are the route's 422, with the field's location.
    const fuzzy = await post(configWith({ compare: "fuzzy" }));
    expect(fuzzy.status).toBe(422);
    expect(JSON.stringify(fuzzy.body)).toContain("compare");
    // The checker files of the kept archive count: this one is valid and becomes version 2.
    const kept = await post(
      configWith({
        cases: [
          { checker: { ...CHECKER, files: ["./checker.cpp", "testlib.h"] } },
          { compare: "float", epsilon: 1e-6 },
        ],
      }),
    );
    expect(kept.body.errorCode).toBe("Success");
    expect(await versions(problem)).toBe(2);
  });

  test("a valid config with every field is stored and read back as written", async () => {
    const problem = await problemWithVersion();
    const config = configWith({
      checker: CHECKER,
      scoring: "min",
      cases: [
        { compare: "float", epsilon: 1e-6 },
        { compare: "lines-unordered", interactor: CHECKER },
      ],
      subtasks: [
        { score: 40, cases: [0] },
        { score: 60, cases: [1], dependsOn: [0] },
      ],
    });
    expect((await upload(problem, config, FILES)).errorCode).toBe("Success");
    const read = await t.api.get(`${base(problem)}/latest/json`, { token: cast.owner.token });
    expect(read.body.data.data.languages[0]).toMatchObject({
      checker: CHECKER,
      scoring: "min",
      cases: [
        { compare: "float", epsilon: 1e-6 },
        { compare: "lines-unordered", interactor: CHECKER },
      ],
      subtasks: [
        { score: 40, cases: [0] },
        { score: 60, cases: [1], dependsOn: [0] },
      ],
    });
  });
});
