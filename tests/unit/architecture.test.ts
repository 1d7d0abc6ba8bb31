import { describe, expect, test } from "bun:test";
import { closureOf, cyclesAmong, importsOf, ROOT } from "../helpers/import-graph";

// The layers of docs/architecture (README "Architecture"), checked from the imports themselves.
const sources = (await Array.fromAsync(new Bun.Glob("{src,workers}/**/*.ts").scan({ cwd: ROOT }))).sort();
const under = (folder: string) => sources.filter((file) => file.startsWith(folder));
const FRAMEWORKS = /^(elysia|@elysiajs\/.*|@mikro-orm\/.*)$/;

describe("two programs, one shared core", () => {
  test("the judge's import closure holds no Elysia and no MikroORM, and no server file", () => {
    const { files, packages } = closureOf(["workers/judge.ts"]);
    expect([...packages].filter((name) => FRAMEWORKS.test(name))).toEqual([]);
    expect(
      [...files].filter(
        (file) => !file.startsWith("src/core/") && !file.startsWith("src/judge/") && file !== "workers/judge.ts",
      ),
    ).toEqual([]);
  });

  test("the core imports nothing but the core, and no framework", () => {
    for (const file of under("src/core/")) {
      const { files, packages } = importsOf(file);
      expect({ file, outside: files.filter((f) => !f.startsWith("src/core/")) }).toEqual({ file, outside: [] });
      expect({ file, frameworks: packages.filter((name) => FRAMEWORKS.test(name)) }).toEqual({ file, frameworks: [] });
    }
  });
});

/**
 * The judge's rooms (README "Architecture"), lowest first: a file imports from its own room or a lower one.
 * The cgroup drivers, inside the sandbox's room, import nothing of the judge but each other.
 */
const JUDGE_ROOMS = [
  ["judge-settings.ts", "toolchains.ts"],
  ["sandbox/"],
  ["outcome/"],
  ["api/"],
  ["run/"],
  ["cache/"],
  ["checks/"],
  ["stages/"],
  ["record/"],
  ["judge-worker.ts"],
];
const roomOf = (file: string) =>
  JUDGE_ROOMS.findIndex((room) => room.some((prefix) => file.slice("src/judge/".length).startsWith(prefix)));

describe("the judge in rooms", () => {
  const judge = under("src/judge/");

  test("every file of the judge is in a room, and at most 8 lie at its top", () => {
    expect(judge.filter((file) => roomOf(file) < 0)).toEqual([]);
    expect(judge.filter((file) => !file.slice("src/judge/".length).includes("/")).length).toBeLessThanOrEqual(8);
  });

  test("a room imports from its own or a lower one only", () => {
    const upward = judge.flatMap((file) =>
      importsOf(file)
        .files.filter((target) => target.startsWith("src/judge/") && roomOf(target) > roomOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  test("the cgroup drivers import nothing of the judge but each other", () => {
    const drivers = under("src/judge/sandbox/cgroups/");
    const outside = drivers.flatMap((file) =>
      importsOf(file)
        .files.filter((target) => !target.startsWith("src/core/") && !target.startsWith("src/judge/sandbox/cgroups/"))
        .map((target) => `${file} -> ${target}`),
    );
    expect(drivers.length).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  });
});

describe("layers that only point down", () => {
  test("shared HTTP, database, job, storage and runtime helpers import no feature, no judge and no entrypoint", () => {
    const shared = ["src/http/", "src/db/", "src/jobs/", "src/storage/", "src/runtime/"].flatMap(under);
    const allowed = (target: string) =>
      target.startsWith("src/core/") ||
      target === "src/settings/config.ts" ||
      ["src/http/", "src/db/", "src/jobs/", "src/storage/", "src/runtime/"].some((folder) => target.startsWith(folder));
    const wrong = shared.flatMap((file) =>
      importsOf(file)
        .files.filter((target) => !allowed(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  test("the composition root (src/server/) is imported by entrypoints only: no module and no shared helper", () => {
    const ENTRYPOINTS = ["src/main.ts", "src/start.ts", "src/migrate.ts", "src/setup.ts"];
    const below = sources.filter(
      (file) => !file.startsWith("src/server/") && !file.startsWith("workers/") && !ENTRYPOINTS.includes(file),
    );
    const upward = below.flatMap((file) =>
      importsOf(file)
        .files.filter((target) => target.startsWith("src/server/"))
        .map((target) => `${file} -> ${target}`),
    );
    expect(below.filter((file) => file.startsWith("src/modules/")).length).toBeGreaterThan(0);
    expect(upward).toEqual([]);
  });

  test("no import circles at all, type imports included", () => {
    expect(cyclesAmong(sources)).toEqual([]);
  });
});

describe("one owner for a record's state", () => {
  test("no statement or entity write outside record-transitions changes a record's state", async () => {
    const writers: string[] = [];
    for (const file of sources) {
      if (file === "src/modules/judging/record-transitions.sql.ts") continue;
      const text = await Bun.file(`${ROOT}/${file}`).text();
      if (/update\s+records\s+\w*\s*set\b[^`;]*?\bstate\s*=/is.test(text) || /\brecord\.state\s*=[^=]/.test(text))
        writers.push(file);
    }
    expect(writers).toEqual([]);
  });
});
