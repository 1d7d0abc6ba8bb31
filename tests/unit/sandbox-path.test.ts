import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PRESETS, PRESET_NAMES } from "../../src/core/config-model/presets";
import { sandboxCommand, sandboxHas } from "../../src/core/sandbox-path";
import { presetGap } from "../../src/judge/toolchains";
import { hasOnThisMachine, planSetup, setupExtras, thisMachine } from "../../src/runtime/judge-tools";

// Setup and the judge ask one question: can the sandbox run this command? A rustup rustc in
// /root/.cargo/bin once made setup say "ready" while every Rust record failed for want of a compiler.
const root = mkdtempSync(join(tmpdir(), "joj-sandbox-path-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const tool = (dir: string, name: string) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), "#!/bin/sh\n");
  chmodSync(join(dir, name), 0o755);
  return join(dir, name);
};

describe("what the sandbox can run", () => {
  const usr = join(root, "usr");
  const where = { dirs: [join(usr, "local/bin"), join(usr, "bin")], visible: [`${usr}/`] };
  const rustup = tool(join(root, "root/.cargo/bin"), "rustc");
  tool(join(usr, "bin"), "gcc");
  mkdirSync(join(usr, "local/bin"), { recursive: true });
  symlinkSync(rustup, join(usr, "local/bin", "rustc"));
  symlinkSync(join(usr, "bin", "gcc"), join(usr, "local/bin", "cc"));

  test("a command under the bound /usr, found through a link inside it too", () => {
    expect(sandboxCommand("gcc", where)).toBe(join(usr, "bin", "gcc"));
    expect(sandboxCommand("cc", where)).toBe(join(usr, "bin", "gcc"));
  });

  test("a toolchain outside it is missing, even behind a link in its PATH", () => {
    expect(sandboxCommand("rustc", where)).toBeNull();
    expect(sandboxCommand("no-such-tool", where)).toBeNull();
  });

  test("on this machine: the shell is there, a command only on the host's PATH is not", () => {
    const onPath = join(root, "path-only");
    tool(onPath, `joj-only-on-path-${process.pid}`);
    const before = process.env.PATH;
    process.env.PATH = `${onPath}:${before}`;
    try {
      const command = `joj-only-on-path-${process.pid}`;
      expect(Bun.which(command, { PATH: process.env.PATH })).not.toBeNull();
      expect(sandboxHas("sh")).toBe(true);
      expect(sandboxHas(command)).toBe(false);
      // Setup asks the sandbox's question for a preset's toolchain, the host's for its own tools.
      expect(hasOnThisMachine({ command, pkg: "x", purpose: "a preset", sandboxed: true })).toBe(false);
      expect(hasOnThisMachine({ command, pkg: "x", purpose: "the judge's own" })).toBe(true);
    } finally {
      process.env.PATH = before;
    }
  });
});

test("setup and the judge agree on every preset of this machine", () => {
  for (const name of PRESET_NAMES) {
    const judgeCanRun = presetGap(PRESETS[name]) === null;
    const plan = planSetup({ ...thisMachine(), isRoot: true }, setupExtras([name]));
    const setupWouldInstall =
      plan.kind !== "ready" && plan.tools.some((tool) => tool.sandboxed && tool.purpose === `the ${name} preset`);
    expect({ name, judgeCanRun }).toEqual({ name, judgeCanRun: !setupWouldInstall });
  }
});
