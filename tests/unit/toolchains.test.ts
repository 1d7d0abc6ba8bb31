import { expect, test } from "bun:test";
import { PRESETS, PRESET_NAMES } from "../../src/core/config-model/presets";
import { presetGap, presetReport, sandboxHas } from "../../src/judge/toolchains";

// The judge says at start-up which presets it can run, and a record in one it cannot run fails with a
// sentence naming the packages (judge-record.ts), never a compile error charged to the program.

test("a machine without the JDK runs every preset but java, and says what to install", () => {
  const noJdk = (command: string) => !["javac", "jar", "java"].includes(command);
  const report = presetReport(noJdk);
  expect(report.ready).toEqual(PRESET_NAMES.filter((name) => name !== "java"));
  expect(report.missing).toEqual({
    java: "javac, jar, java not installed (apt-get install default-jdk-headless, or bun run setup)",
  });
  expect(presetGap(PRESETS.java, noJdk)).toContain("default-jdk-headless");
  expect(presetGap(PRESETS.go, noJdk)).toBeNull();
});

test("the sandbox's PATH is what counts: a compiler only under /root is not there", () => {
  expect(sandboxHas("sh")).toBe(true);
  expect(sandboxHas(`no-such-compiler-${process.pid}`)).toBe(false);
});
