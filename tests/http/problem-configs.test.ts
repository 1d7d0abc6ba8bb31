import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { archiveOf, deflatedZeros, rawZip, tarOf } from "../helpers/archive-builders";
import { readArchive } from "../../src/modules/problem-configs/archive-reader";
import { ProblemConfig } from "../../src/modules/problem-configs/problem-config.entity";
import { ProblemConfigFile } from "../../src/modules/problem-configs/problem-config-file.entity";
import { Problem } from "../../src/modules/problems/problem.entity";

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
});
afterAll(() => t.close());

/** Two languages whose one case reads `input` and `output` (an upload must hold both). */
const configOf = (input = "1.in", output = "1.out") =>
  JSON.stringify({
    languages: [
      {
        name: "c",
        compileFiles: ["a.c"],
        compileArgs: ["gcc", "a.c"],
        cases: [{ executeInputFile: input, executeOutputFile: output }],
      },
      { name: "python3", cases: [{ executeInputFile: input, executeOutputFile: output }] },
    ],
  });
const CONFIG = configOf();

async function newProblem(): Promise<string> {
  const response = await t.api.post(`/domains/${cast.domain.id}/problems`, { title: "P" }, { token: cast.owner.token });
  return response.body.data.id;
}

const base = (problemId: string) => `/domains/${cast.domain.id}/problems/${problemId}/configs`;

async function upload(problemId: string, archive: Buffer, query = "", token = cast.admin.token) {
  const form = new FormData();
  form.append("file", new Blob([archive]), "config.zip");
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${base(problemId)}${query}`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return { status: response.status, body: (await response.json()) as any };
}

const versionsOf = (problemId: string) => t.orm.em.fork().count(ProblemConfig, { problem: problemId });

describe("uploading a config archive", () => {
  test("needs problem.viewConfig and problem.edit", async () => {
    const problem = await newProblem();
    const archive = await archiveOf("zip", { "config.json": CONFIG });
    expect((await upload(problem, archive, "", cast.member.token)).status).toBe(403);
    expect((await t.api.get(base(problem), { token: cast.member.token })).body).toEqual({
      detail: "problem view_config Permission Denied.",
    });
    expect((await t.api.get(base(problem))).status).toBe(401);
  });

  test("a zip becomes version 1: files stored, languages set, listed, readable as JSON", async () => {
    const problem = await newProblem();
    const response = await upload(
      problem,
      await archiveOf("zip", { "config.json": CONFIG, "1.in": "1 2\n", "1.out": "3\n" }),
    );
    expect(response.body.errorCode).toBe("Success");
    expect(response.body.data).toMatchObject({
      version: 1,
      committerId: cast.admin.user.id,
      dataVersion: 2,
      commitMessage: "",
    });
    const stored = await t.orm.em.fork().findOneOrFail(Problem, { id: problem });
    expect(stored.languages).toEqual(["c", "python3"]);
    const list = await t.api.get(base(problem), { token: cast.admin.token });
    expect(list.body.data.results.map((v: { id: string }) => v.id)).toEqual([response.body.data.id]);
    const json = await t.api.get(`${base(problem)}/latest/json`, { token: cast.admin.token });
    expect(json.body.data.data.languages[0]).toMatchObject({ name: "c", compileArgs: ["gcc", "a.c"] });
    expect(json.body.data.id).toBe(response.body.data.id);
  });

  test("a tar.gz whose files sit in one top-level folder is accepted as if they were at the root", async () => {
    const problem = await newProblem();
    const archive = await archiveOf("tar.gz", {
      "hw1/config.json": CONFIG,
      "hw1/1.in": "x",
      "hw1/1.out": "y",
      "__MACOSX/hw1/._1.in": "mac",
    });
    expect((await upload(problem, archive)).body.errorCode).toBe("Success");
    const ls = await t.api.get(`${base(problem)}/latest/ls`, { token: cast.admin.token });
    expect(ls.body.data.results.map((o: { path: string }) => o.path)).toEqual(["1.in", "1.out", "config.json"]);
  });

  test("download → unpack gives back identical files, as zip and as tar.gz", async () => {
    const problem = await newProblem();
    const files = {
      "config.json": configOf("data/big.in", "data/1.out"),
      "data/big.in": "x".repeat(100_000),
      "data/1.out": "3\n",
    };
    await upload(problem, await archiveOf("zip", files));
    for (const format of ["zip", "tar"]) {
      const response = await t.app.handle(
        new Request(`http://localhost/api/v1${base(problem)}/latest?archiveFormat=${format}`, {
          headers: { authorization: `Bearer ${cast.admin.token}` },
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(format === "zip" ? "application/zip" : "application/gzip");
      expect(response.headers.get("content-disposition")).toMatch(
        /^attachment; filename="problem-.*-config-v1\.(zip|tar\.gz)"$/,
      );
      const entries = await readArchive(new Uint8Array(await response.arrayBuffer()));
      expect(Object.fromEntries(entries.map((e) => [e.path, new TextDecoder().decode(e.data)]))).toEqual(files);
    }
    const rar = await t.api.get(`${base(problem)}/latest?archiveFormat=rar`, { token: cast.admin.token });
    expect(rar.body).toMatchObject({ errorCode: "FileDownloadError", errorMsg: "archive type not supported!" });
    expect(
      (await t.api.get(`${base(problem)}/00000000-0000-4000-8000-000000000000`, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("ProblemConfigNotFoundError");
  });
});

describe("hostile and invalid archives are refused and nothing is stored", () => {
  const cases: [string, () => Promise<Buffer>, string, string][] = [
    [
      "zip-slip",
      async () =>
        rawZip([
          { name: "config.json", data: CONFIG },
          { name: "../../evil", data: "x" },
        ]),
      "FileValidationError",
      "evil",
    ],
    [
      "an absolute path",
      async () => tarOf([{ name: "/etc/cron.d/x", data: "x" }]),
      "FileValidationError",
      "/etc/cron.d/x",
    ],
    [
      "a symlink",
      async () =>
        tarOf([
          { name: "config.json", data: CONFIG },
          { name: "1.out", type: "symlink", linkname: "/etc/shadow" },
        ]),
      "FileValidationError",
      "1.out",
    ],
    [
      "a zip bomb beyond the limit",
      async () =>
        rawZip([
          { name: "config.json", data: CONFIG },
          { name: "bomb", deflated: deflatedZeros(100), claimedSize: 100 },
        ]),
      "FileValidationError",
      "bomb",
    ],
    ["not an archive", async () => Buffer.from("just some text, not an archive"), "FileValidationError", "zip"],
    ["no config.json", async () => archiveOf("zip", { "1.in": "x" }), "ProblemConfigJsonNotFoundError", "config.json"],
    [
      "an invalid config.json",
      async () => archiveOf("zip", { "config.json": '{"languages": [{"name": "c", "cases": [{"time": "soon"}]}]}' }),
      "FileValidationError",
      "/languages/0/cases/0/time",
    ],
    [
      "config.json that is not JSON",
      async () => archiveOf("zip", { "config.json": "{oops" }),
      "FileValidationError",
      "not valid JSON",
    ],
  ];
  test.each(cases)("%s", async (_, build, code, fragment) => {
    const problem = await newProblem();
    const files = await t.orm.em.fork().count(ProblemConfigFile, {});
    const response = await upload(problem, await build());
    expect(response.body.errorCode).toBe(code);
    expect(response.body.errorMsg).toContain(fragment);
    expect(await versionsOf(problem)).toBe(0);
    expect(await t.orm.em.fork().count(ProblemConfigFile, {})).toBe(files);
  });

  test("too many files", async () => {
    const problem = await newProblem();
    const many = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`d/${i}`, ""]));
    const response = await upload(problem, await archiveOf("zip", { "config.json": CONFIG, ...many }));
    expect(response.body.errorCode).toBe("FileValidationError");
    expect(await versionsOf(problem)).toBe(0);
  });
});

describe("configJsonOnMissing", () => {
  test("use_default writes Horse's default config; use_old reuses the latest version's", async () => {
    const problem = await newProblem();
    // Horse's default config reads case.in and case.out: an archive without them is refused, never judged.
    const without = await upload(problem, await archiveOf("zip", { "1.in": "x" }), "?configJsonOnMissing=use_default");
    expect(without.body).toMatchObject({ errorCode: "FileValidationError" });
    expect(without.body.errorMsg).toContain('/languages/0/cases/0/executeInputFile: "case.in" is not in the config');
    const byDefault = await upload(
      problem,
      await archiveOf("zip", { "case.in": "x", "case.out": "y" }),
      "?configJsonOnMissing=use_default",
    );
    expect(byDefault.body.errorCode).toBe("Success");
    expect((await t.orm.em.fork().findOneOrFail(Problem, { id: problem })).languages).toEqual(["c++"]);
    await upload(problem, await archiveOf("zip", { "config.json": CONFIG, "1.in": "1", "1.out": "2" }));
    const reused = await upload(
      problem,
      await archiveOf("zip", { "1.in": "y", "1.out": "z" }),
      "?config_json_on_missing=use_old",
    );
    expect(reused.body.data.version).toBe(3);
    const ls = await t.api.get(`${base(problem)}/latest/ls`, { token: cast.admin.token });
    expect(ls.body.data.results.map((o: { path: string }) => o.path)).toEqual(["1.in", "1.out", "config.json"]);
    expect(
      (await t.api.get(`${base(problem)}/latest/json`, { token: cast.admin.token })).body.data.data.languages[0].name,
    ).toBe("c");
  });

  test("use_old without an earlier config is FileUpdateError", async () => {
    const problem = await newProblem();
    const response = await upload(problem, await archiveOf("zip", { "1.in": "x" }), "?configJsonOnMissing=use_old");
    expect(response.body.errorCode).toBe("FileUpdateError");
  });
});

describe("versions", () => {
  test("an identical upload is refused as 'no changes'; two different uploads at once both become versions", async () => {
    const problem = await newProblem();
    const archive = await archiveOf("zip", { "config.json": CONFIG, "1.in": "1", "1.out": "1" });
    await upload(problem, archive);
    const again = await upload(problem, archive);
    expect(again.body).toMatchObject({ errorCode: "FileUpdateError" });
    const [a, b] = await Promise.all([
      upload(problem, await archiveOf("zip", { "config.json": CONFIG, "1.in": "A", "1.out": "1" })),
      upload(problem, await archiveOf("zip", { "config.json": CONFIG, "1.in": "B", "1.out": "1" })),
    ]);
    expect([a.body.data.version, b.body.data.version].sort()).toEqual([2, 3]);
    expect(await versionsOf(problem)).toBe(3);
  });

  test("configs/json replaces config.json and keeps the other files; identical JSON is 'no changes'", async () => {
    const problem = await newProblem();
    await upload(problem, await archiveOf("zip", { "config.json": CONFIG, "1.in": "1", "1.out": "2" }));
    const rust = {
      languages: [{ name: "rust", cases: [{ time: "2s", executeInputFile: "1.in", executeOutputFile: "1.out" }] }],
    };
    const updated = await t.api.post(`${base(problem)}/json`, rust, { token: cast.admin.token });
    expect(updated.body.data.version).toBe(2);
    expect((await t.orm.em.fork().findOneOrFail(Problem, { id: problem })).languages).toEqual(["rust"]);
    const ls = await t.api.get(`${base(problem)}/latest/ls`, { token: cast.admin.token });
    expect(ls.body.data.results.map((o: { path: string }) => o.path)).toEqual(["1.in", "1.out", "config.json"]);
    // A case reading a file the version does not hold is refused with its path, and nothing changes.
    const missing = await t.api.post(
      `${base(problem)}/json`,
      { languages: [{ name: "rust", cases: [{ executeInputFile: "2.in", executeOutputFile: "1.out" }] }] },
      { token: cast.admin.token },
    );
    expect(missing.body.errorCode).toBe("FileValidationError");
    expect(missing.body.errorMsg).toContain('/languages/0/cases/0/executeInputFile: "2.in" is not in the config');
    expect(await versionsOf(problem)).toBe(2);
    const same = await t.api.post(`${base(problem)}/json`, rust, { token: cast.admin.token });
    expect(same.body.errorCode).toBe("FileUpdateError");
    const invalid = await t.api.post(
      `${base(problem)}/json`,
      { languages: [{ name: "rust", cases: [{ time: 5 }] }] },
      { token: cast.admin.token },
    );
    expect(invalid.status).toBe(422);
  });

  test("ls pages with a cursor and groups by delimiter; diff shows what the latest version changed", async () => {
    const problem = await newProblem();
    await upload(
      problem,
      await archiveOf("zip", {
        "config.json": configOf("data/1.in", "readme"),
        "data/1.in": "1",
        "data/2.in": "2",
        readme: "r",
      }),
    );
    await upload(
      problem,
      await archiveOf("zip", {
        "config.json": configOf("data/1.in", "readme"),
        "data/1.in": "one",
        "data/3.in": "3",
        readme: "r",
      }),
    );
    const first = await t.api.get(`${base(problem)}/latest/ls?amount=2`, { token: cast.admin.token });
    expect(first.body.data.pagination).toEqual({
      has_more: true,
      next_offset: "data/1.in",
      results: 2,
      max_per_page: 2,
    });
    const second = await t.api.get(`${base(problem)}/latest/ls?amount=2&after=data/1.in`, { token: cast.admin.token });
    expect(second.body.data.results.map((o: { path: string }) => o.path)).toEqual(["data/3.in", "readme"]);
    const folders = await t.api.get(`${base(problem)}/latest/ls?delimiter=/`, { token: cast.admin.token });
    expect(
      folders.body.data.results.map((o: { path: string; path_type: string }) => `${o.path}:${o.path_type}`),
    ).toEqual(["config.json:object", "data/:common_prefix", "readme:object"]);
    const inData = await t.api.get(`${base(problem)}/latest/ls?prefix=data/`, { token: cast.admin.token });
    expect(inData.body.data.results[0]).toMatchObject({ path: "data/1.in", path_type: "object", size_bytes: 3 });
    const diff = await t.api.get(`${base(problem)}/latest/diff`, { token: cast.admin.token });
    expect(diff.body.data.results).toEqual([
      { type: "changed", path: "data/1.in", path_type: "object", size_bytes: 3 },
      { type: "removed", path: "data/2.in", path_type: "object", size_bytes: 1 },
      { type: "added", path: "data/3.in", path_type: "object", size_bytes: 1 },
    ]);
  });

  test("a problem without a config: ls and latest are ProblemConfigNotFoundError", async () => {
    const problem = await newProblem();
    expect((await t.api.get(`${base(problem)}/latest/ls`, { token: cast.admin.token })).body.errorCode).toBe(
      "ProblemConfigNotFoundError",
    );
    expect((await t.api.get(`${base(problem)}/latest/json`, { token: cast.admin.token })).body.errorCode).toBe(
      "ProblemConfigNotFoundError",
    );
  });
});
