import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, existsSync } from "node:fs";
import { utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { FileCache, type BuiltFile } from "../../src/judge/cache/file-cache";

const keyOf = (text: string) => createHash("sha256").update(text).digest("hex");
const bytes = (text: string) => new TextEncoder().encode(text);

test("a build is made once for concurrent asks, kept with its modes, and found again by a new cache", async () => {
  const dir = mkdtempSync(join(tmpdir(), "joj-cache-"));
  let builds = 0;
  const build = async (): Promise<BuiltFile[]> => {
    builds++;
    await Bun.sleep(50);
    return [
      { path: "checker", mode: 0o755, bytes: bytes("#!/bin/sh\nexit 0\n") },
      { path: "lib/words.txt", mode: 0o644, bytes: bytes("ok\n") },
    ];
  };
  const cache = new FileCache(dir, 64 << 20);
  const [a, b] = await Promise.all([cache.built(keyOf("one"), build), cache.built(keyOf("one"), build)]);
  expect(builds).toBe(1);
  expect(a).toEqual(b);
  expect(a.map((f) => [f.path, f.mode])).toEqual([
    ["checker", 0o755],
    ["lib/words.txt", 0o644],
  ]);
  expect(statSync(a[0].hostPath).mode & 0o777).toBe(0o755);
  expect(readFileSync(a[1].hostPath, "utf8")).toBe("ok\n");
  expect(await new FileCache(dir, 64 << 20).built(keyOf("one"), build)).toEqual(a);
  expect(builds).toBe(1);
});

test("a build that throws is not kept: the next ask builds again", async () => {
  const cache = new FileCache(mkdtempSync(join(tmpdir(), "joj-cache-")), 64 << 20);
  await expect(
    cache.built(keyOf("broken"), async () => {
      throw new Error("did not compile");
    }),
  ).rejects.toThrow("did not compile");
  const kept = await cache.built(keyOf("broken"), async () => [{ path: "checker", mode: 0o755, bytes: bytes("x") }]);
  expect(kept).toHaveLength(1);
  await expect(cache.built("../../etc", async () => [])).rejects.toThrow("not a SHA-256 digest");
});

test("pruning drops the least recently used builds beyond the bound", async () => {
  const dir = mkdtempSync(join(tmpdir(), "joj-cache-"));
  const cache = new FileCache(dir, 16 << 20);
  const big = (name: string) => async () => [
    { path: "checker", mode: 0o755, bytes: new Uint8Array(6 << 20).fill(name.charCodeAt(0)) },
  ];
  const [old, older, recent] = [
    await cache.built(keyOf("a"), big("a")),
    await cache.built(keyOf("b"), big("b")),
    await cache.built(keyOf("c"), big("c")),
  ];
  const hourAgo = new Date(Date.now() - 3600_000);
  const dayAgo = new Date(Date.now() - 86_400_000);
  await utimes(dirname(dirname(old[0].hostPath)), hourAgo, hourAgo);
  await utimes(dirname(dirname(older[0].hostPath)), dayAgo, dayAgo);
  await cache.prune();
  // 18 MiB kept against a 16 MiB bound: the least recently used build goes, and 12 MiB is under 80 %.
  expect([existsSync(older[0].hostPath), existsSync(old[0].hostPath), existsSync(recent[0].hostPath)]).toEqual([
    false,
    true,
    true,
  ]);
  await utimes(dirname(dirname(recent[0].hostPath)), dayAgo, dayAgo);
  await cache.built(keyOf("d"), big("d"));
  await cache.prune();
  // 18 MiB again: the build used a day ago goes before the one used an hour ago; the fresh one stays.
  expect([existsSync(recent[0].hostPath), existsSync(old[0].hostPath)]).toEqual([false, true]);
});
