import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PRESETS, type PresetName } from "../../core/config-model/presets";
import { sandboxCommand } from "../../core/sandbox-path";
import { presetReport } from "../toolchains";
import { ensurePinner } from "./helpers";
import { BWRAP_ENV } from "./sandbox";

/**
 * The page cache of the language runtimes, held by the judge (pinner.c). A run's memory is what its cgroup
 * is charged, and the kernel charges a page of the page cache to the group that faulted it in first: the
 * same Java a + b was 18 MB when the JDK was cached by someone else and 81 MB when its run had to read the
 * JDK, so a figure depended on who ran before (and a program could evict the JDK with posix_fadvise for the
 * next one). The judge maps and locks the files every run of a preset reads (its executables and their
 * libraries, the JDK's lib/, CPython's standard library) before its first run, so they are charged to the
 * judge's own group and stay there: no run pays for them, whichever ran before, on a fresh judge or not.
 */

/** Whatever a file list holds at most: the trees below are a few hundred MiB, never a whole disk. */
const MAX_FILES = 20_000;

/**
 * The runtime a preset's cases run under (java, python3, node), or null for a program that runs alone (C,
 * C++, Go, Rust: their binaries are staged per record, their C libraries come with node's). Compilers are
 * left out: a compile's memory is no grade (its page cache is reclaimable, so it never makes an OOM kill).
 */
function runtimeOf(name: PresetName): string | null {
  // `env NAME=value … command`: the command after the variables (python3 runs with ONLINE_JUDGE=1).
  const args: readonly string[] = PRESETS[name].executeArgs;
  const run = args[0] === "env" ? args.slice(1).find((arg) => !arg.includes("=")) : args[0];
  return run && !run.startsWith(".") ? run : null;
}

/** The trees a runtime reads on every run besides its executable and its libraries. */
export function runtimeTrees(executable: string): string[] {
  // The JDK: java and javac resolve into <home>/bin; the class library (lib/modules), libjvm and its
  // class-data archive are under <home>/lib, its settings under <home>/conf.
  if (/\/bin\/(java|javac|jar)$/.test(executable)) {
    const home = dirname(dirname(executable));
    return [join(home, "lib"), join(home, "conf")];
  }
  // CPython: /usr/bin/python3.11 reads its standard library (and the compiled __pycache__) from /usr/lib/python3.11.
  const python = /^python(\d+\.\d+)$/.exec(basename(executable));
  return python ? [`/usr/lib/python${python[1]}`] : [];
}

/** Regular files under `dir`, links not followed (a link out of the tree is not the runtime's). */
function filesUnder(dir: string, into: Set<string>): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (into.size >= MAX_FILES) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, into);
    else if (entry.isFile()) into.add(path);
  }
}

/** The shared libraries an executable loads, as ldd (the dynamic loader itself) lists them. */
async function librariesOf(executable: string): Promise<string[]> {
  const ldd = Bun.spawn(["ldd", executable], { stdout: "pipe", stderr: "ignore", env: { ...BWRAP_ENV } });
  const [text] = await Promise.all([new Response(ldd.stdout).text(), ldd.exited]);
  return [...text.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]);
}

/** Every file the ready presets' runs read from the toolchain, as the host's real paths. */
export async function toolchainFiles(presets: readonly PresetName[] = presetReport().ready): Promise<string[]> {
  const executables = new Set<string>();
  for (const name of presets) {
    const runtime = runtimeOf(name);
    const real = runtime && sandboxCommand(runtime);
    if (real) executables.add(real);
  }
  const files = new Set<string>(executables);
  for (const libraries of await Promise.all([...executables].map(librariesOf)))
    for (const library of libraries) files.add(library);
  for (const executable of executables) for (const tree of runtimeTrees(executable)) filesUnder(tree, files);
  // What the C library loads for every runtime besides its shared libraries: the sandbox's locale
  // (LANG=C.UTF-8) and the character-set converters beside libc (a JVM loads some; a program that dropped
  // them from the cache made the next Java run 1 MB heavier).
  const libc = [...files].find((path) => /\/libc\.so\.6$/.test(path));
  if (executables.size > 0) filesUnder("/usr/lib/locale/C.utf8", files);
  if (libc) filesUnder(join(dirname(libc), "gconv"), files);
  return [...files].sort();
}

export interface PinnedPages {
  files: number;
  bytes: number;
  /** Whether the pages are locked (else mapped: kept from fadvise, not from the kernel's reclaim). */
  locked: boolean;
}

let pinned: Promise<PinnedPages> | null = null;
let pinner: ReturnType<typeof Bun.spawn> | null = null;

/**
 * Pins the toolchains' pages for this process's lifetime, once however many slot pools it opens; the pinner
 * dies with the process. Call it only after the slots' groups were emptied (a page already charged to a
 * slot would stay charged there).
 */
export function pinToolchains(helperDir: string): Promise<PinnedPages> {
  pinned ??= (async () => {
    const [binary, files] = await Promise.all([ensurePinner(helperDir), toolchainFiles()]);
    const child = Bun.spawn([binary], { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: { ...BWRAP_ENV } });
    pinner = child;
    child.stdin.write(`${files.join("\n")}\n\n`);
    await child.stdin.flush();
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the toolchain pinner ended before it answered");
      line += new TextDecoder().decode(value);
    }
    const [, count, bytes, locked] = /^pinned (\d+) (\d+) (\d)/.exec(line) ?? [];
    if (!count) throw new Error(`the toolchain pinner answered ${line.trim()}`);
    return { files: Number(count), bytes: Number(bytes), locked: locked === "1" };
  })();
  return pinned;
}

/** Lets the pages go (the judge stopping); the next pinToolchains starts again. */
export async function unpinToolchains(): Promise<void> {
  const child = pinner;
  pinner = null;
  pinned = null;
  if (!child) return;
  child.kill("SIGKILL");
  await child.exited;
}
