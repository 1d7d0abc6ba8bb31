import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { BWRAP_ENV } from "./sandbox";

/** The sandbox's own programs in C (the runner, the start-up probe, the pinner), built once per version. */

/** The runner's sources (runner.h says which does what); the header is hashed with them. */
const RUNNER_SOURCES = [
  "runner.c",
  "runner-request.c",
  "runner-work.c",
  "runner-layers.c",
  "runner-spare.c",
  "runner-sandbox.c",
  "runner-reset.c",
  "runner-sysv.c",
  "runner-seccomp.c",
  "runner-pair.c",
].map((name) => join(import.meta.dir, "runner", name));
const RUNNER_HEADER = join(import.meta.dir, "runner", "runner.h");
const PROBE_SOURCE = join(import.meta.dir, "probe.c");
const PINNER_SOURCE = join(import.meta.dir, "pinner.c");
/** Part of the cache key: a change of how a helper is built builds it again. */
const HELPER_BUILD = "gcc -O2 [-static]";
/** Compiles the runner once per source version into `dir` (gcc and libseccomp are judge requirements). */
export function ensureRunner(dir: string): Promise<string> {
  return ensureHelper(dir, "runner", RUNNER_SOURCES, ["-lseccomp"], [RUNNER_HEADER]);
}

/** The start-up probe (probe.c), run in the sandbox by the self-check (self-check.ts). */
export function ensureProbe(dir: string): Promise<string> {
  return ensureHelper(dir, "probe", [PROBE_SOURCE], []);
}

/** The toolchain pinner (pinner.c, toolchain-pages.ts), run beside the judge for as long as it lives. */
export function ensurePinner(dir: string): Promise<string> {
  return ensureHelper(dir, "pinner", [PINNER_SOURCE], []);
}

async function ensureHelper(
  dir: string,
  name: string,
  sources: string[],
  libraries: string[],
  headers: string[] = [],
): Promise<string> {
  const hash = createHash("sha256");
  for (const path of [...sources, ...headers]) hash.update(await readFile(path));
  const digest = hash.update(HELPER_BUILD).update(libraries.join(" ")).digest("hex");
  const path = join(dir, `${name}-${digest.slice(0, 12)}`);
  if (
    await lstat(path).then(
      () => true,
      () => false,
    )
  )
    return path;
  await mkdir(dir, { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  // Static when the libraries allow it: an exec without the dynamic loader is ~1.5 ms cheaper per run.
  const build = (...extra: string[]) =>
    Bun.spawn(["gcc", "-O2", "-Wall", ...extra, "-o", temp, ...sources, ...libraries], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...BWRAP_ENV },
    });
  let gcc = build("-static");
  if ((await gcc.exited) !== 0) gcc = build();
  if ((await gcc.exited) !== 0) {
    const why = await new Response(gcc.stderr).text();
    const hint = /seccomp/.test(why) ? " (install libseccomp-dev: bun run setup)" : "";
    throw new Error(`cannot build the sandbox ${name}${hint}: ${why}`);
  }
  await chmod(temp, 0o755);
  await rename(temp, path);
  return path;
}
