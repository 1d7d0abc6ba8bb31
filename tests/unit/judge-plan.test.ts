import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/core/env-reader";
import { loadJudgeSettings } from "../../src/judge/judge-settings";
import { parseMemory, parseTime, planJudging } from "../../src/judge/run/plan";
import { escapeOutput } from "../../src/judge/outcome/text";

const KEY = { JUDGER_ACCESS_KEY_ID: "jk_1", JUDGER_SECRET_ACCESS_KEY: "s" };

describe("limits from config.json", () => {
  test("times and memory in every written form", () => {
    expect([parseTime("1s"), parseTime("1.5s"), parseTime("500ms"), parseTime("0ms")]).toEqual([1000, 1500, 500, 1]);
    expect([
      parseMemory("64m"),
      parseMemory("256MB"),
      parseMemory("512k"),
      parseMemory("1g"),
      parseMemory("1048576"),
      parseMemory("1"),
    ]).toEqual([65536, 262144, 512, 1048576, 1024, 1]);
    expect(() => parseTime("1 minute")).toThrow("unreadable time");
    expect(() => parseMemory("lots")).toThrow("unreadable memory");
  });

  test("a plan merges the defaults, normalises ./ paths and derives the wall clock; an unknown language has none", () => {
    const settings = loadJudgeSettings({ ...KEY, JUDGE_OUTPUT_LIMIT_MB: "2", JUDGE_PROCESSES: "8" }, []);
    const config = {
      languageDefault: {
        compileArgs: ["gcc", "a.c"],
        cases: [{ time: "2s" }, { memory: "1g", executeInputFile: "./data/2.in" }],
      },
      languages: [{ name: "c", compileFiles: ["./a.c"], caseDefault: { score: 7 } }],
    };
    const plan = planJudging(new TextEncoder().encode(JSON.stringify(config)), "c", settings)!;
    expect(plan).toMatchObject({ language: "c", compileFiles: ["a.c"], compileArgs: ["gcc", "a.c"] });
    expect(plan.cases[0]).toMatchObject({
      index: 0,
      score: 7,
      executeFiles: ["a.out"],
      inputPath: "case.in",
      expectedPath: "case.out",
      limits: { cpuMs: 2000, wallMs: 5000, memoryKb: 65536, fileBytes: 2 * 1024 * 1024, processes: 8 },
    });
    expect(plan.cases[1]).toMatchObject({
      index: 1,
      inputPath: "data/2.in",
      limits: { cpuMs: 1000, memoryKb: 1048576 },
    });
    expect(planJudging(new TextEncoder().encode(JSON.stringify(config)), "java", settings)).toBeNull();
  });
});

describe("judge settings", () => {
  test("--server selects HTTP mode; the environment alone means queue mode", () => {
    expect(loadJudgeSettings(KEY, ["--server", "https://joj.example.edu/"])).toMatchObject({
      mode: "http",
      serverUrls: ["https://joj.example.edu"],
    });
    expect(loadJudgeSettings({ ...KEY, PORT: "4000" }, [])).toMatchObject({
      mode: "queue",
      serverUrls: ["http://127.0.0.1:4000"],
    });
    expect(loadJudgeSettings(KEY, ["--server=http://api:34765", "--mode", "queue"])).toMatchObject({
      mode: "queue",
      serverUrls: ["http://api:34765"],
    });
  });

  test("several API addresses: --server repeated or a list, JUDGE_SERVER_URL a list; each must be http(s)", () => {
    const two = ["https://api-1.joj.example.edu", "https://api-2.joj.example.edu"];
    expect(loadJudgeSettings(KEY, ["--server", two[0], "--server", `${two[1]}/`]).serverUrls).toEqual(two);
    expect(loadJudgeSettings(KEY, [`--server=${two.join(",")}`]).serverUrls).toEqual(two);
    const listed = loadJudgeSettings({
      ...KEY,
      JUDGE_SERVER_URL: ` ${two[0]} , ${two[1]},${two[0]}`,
      JUDGE_MODE: "http",
    });
    expect(listed).toMatchObject({ mode: "http", serverUrls: two });
    // Behind a proxy at a path: the path stays, the trailing slash goes.
    expect(loadJudgeSettings({ ...KEY, JUDGE_SERVER_URL: "https://lab.example.edu/joj/" }).serverUrls).toEqual([
      "https://lab.example.edu/joj",
    ]);
    for (const bad of [{ JUDGE_SERVER_URL: `${two[0]},ftp://files` }, { JUDGE_SERVER_URL: "api-2:34765," }])
      expect(() => loadJudgeSettings({ ...KEY, ...bad })).toThrow(ConfigError);
    expect(() => loadJudgeSettings(KEY, ["--server", `${two[0]},not a url`])).toThrow(ConfigError);
  });

  test("every problem is reported together, by name", () => {
    let error: unknown;
    try {
      loadJudgeSettings({ JUDGE_CONCURRENCY: "lots" }, ["--mode", "sideways", "--verbose"]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const part of [
      "JUDGER_ACCESS_KEY_ID and JUDGER_SECRET_ACCESS_KEY are required",
      "JUDGE_CONCURRENCY must be a whole number",
      "--mode must be queue or http",
      'unknown argument "--verbose"',
    ])
      expect(message).toContain(part);
  });
});

describe("output shown in reports", () => {
  test("control characters are escaped, invalid UTF-8 replaced, long output cut with a note", () => {
    expect(escapeOutput(new Uint8Array([0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x41, 0x0a, 0x09, 0x00]))).toBe(
      "\\x1b[31mA\n\t\\x00",
    );
    expect(escapeOutput(new Uint8Array([0xff, 0x41]))).toBe("\uFFFDA");
    expect(escapeOutput(new TextEncoder().encode("x".repeat(100)), 10)).toBe(`${"x".repeat(10)}\n… (output truncated)`);
    expect(escapeOutput(new TextEncoder().encode("ok"), 10, true)).toBe("ok\n… (output truncated)");
  });
});
