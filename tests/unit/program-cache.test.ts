import { expect, test } from "bun:test";
import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolchainFingerprint } from "../../src/judge/cache/program-cache";

// A cached program is keyed by its compiler's fingerprint: an upgraded toolchain builds anew.
test("the compiler's fingerprint follows its resolved file, and changes when the file does", async () => {
  const gcc = await toolchainFingerprint("gcc");
  expect(gcc).toStartWith("/usr/");
  expect(await toolchainFingerprint("gcc")).toBe(gcc);
  const dir = mkdtempSync(join(tmpdir(), "joj-toolchain-"));
  const compiler = join(dir, "cc");
  writeFileSync(compiler, "#!/bin/sh\n");
  utimesSync(compiler, new Date(2026, 0, 1), new Date(2026, 0, 1));
  const before = await toolchainFingerprint(compiler);
  utimesSync(compiler, new Date(2026, 5, 1), new Date(2026, 5, 1));
  expect(await toolchainFingerprint(compiler)).not.toBe(before);
  expect(await toolchainFingerprint("no-such-compiler-here")).toBe("missing:no-such-compiler-here");
});
