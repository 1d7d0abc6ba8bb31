import { createHash } from "node:crypto";
import { chmod, chown, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { constants } from "node:fs";
import { join } from "node:path";

/**
 * One program run in a bubblewrap sandbox. The threat model (see README "The sandbox"): the program is
 * hostile. It gets a fresh work directory (mounted at /work) and nothing else writable, read-only system
 * directories (/usr and the links into it; no /etc, /home, /root, /var), no network (its own empty
 * network namespace), private PID/IPC/UTS/user namespaces, an unprivileged uid of the judge slot, a
 * new session, and kernel limits on CPU time, address space, file size and processes, plus a wall
 * clock enforced by the runner (runner.c). Times and peak memory are the kernel's (wait4).
 */

export interface Limits {
  cpuMs: number;
  wallMs: number;
  memoryKb: number;
  /** Largest file the program may write, stdout and stderr included. */
  fileBytes: number;
  processes: number;
}

export interface RunResult {
  exitCode: number;
  signal: number;
  cpuMs: number;
  wallMs: number;
  memoryKb: number;
  wallExceeded: boolean;
  /** The runner itself did not report: the program interfered with it, or the sandbox failed. */
  lost: boolean;
  /** What bubblewrap or the runner said when the run was lost. */
  diagnostics: string;
}

const RUNNER_SOURCE = join(import.meta.dir, "runner.c");
/** Uids of judge slots: one per concurrent run, so process limits and signals never cross runs. */
export const SLOT_UID_BASE = 60_000;

/** Compiles the runner once per source version into `dir` (gcc is needed on a judge machine anyway). */
export async function ensureRunner(dir: string): Promise<string> {
  const source = await readFile(RUNNER_SOURCE);
  const path = join(dir, `runner-${createHash("sha256").update(source).digest("hex").slice(0, 12)}`);
  if (await lstat(path).then(() => true, () => false)) return path;
  await mkdir(dir, { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  const gcc = Bun.spawn(["gcc", "-O2", "-o", temp, RUNNER_SOURCE], { stdout: "pipe", stderr: "pipe" });
  if ((await gcc.exited) !== 0) throw new Error(`cannot build the sandbox runner: ${await new Response(gcc.stderr).text()}`);
  await chmod(temp, 0o755);
  await rename(temp, path);
  return path;
}

/** A fresh work directory owned by the slot's uid (the program may write only here). */
export async function freshWorkDir(root: string, name: string, uid: number): Promise<string> {
  const dir = join(root, name);
  // The root is traversable, not listable: a slot's uid reaches its own directory and nothing else.
  await mkdir(root, { recursive: true });
  await chmod(root, 0o711);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { mode: 0o700 });
  await chown(dir, uid, uid);
  return dir;
}

export interface SandboxRun {
  runner: string;
  workDir: string;
  argv: string[];
  /** A file in the work directory fed to stdin, or null for empty input. */
  stdin: string | null;
  /** Names in the work directory for the program's stdout and stderr. */
  stdout: string;
  stderr: string;
  limits: Limits;
  uid: number;
}

export function bwrapArgv(run: SandboxRun): string[] {
  const { limits } = run;
  return [
    "setpriv", `--reuid=${run.uid}`, `--regid=${run.uid}`, "--clear-groups", "--inh-caps=-all",
    "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "judge", "--clearenv",
    "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/work", "--setenv", "LANG", "C.UTF-8",
    "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
    "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
    // Compilers are reached through Debian's alternatives links.
    "--ro-bind-try", "/etc/alternatives", "/etc/alternatives", "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--ro-bind", run.runner, "/.runner",
    "--bind", run.workDir, "/work", "--chdir", "/work",
    "/.runner", String(limits.cpuMs), String(limits.wallMs), String(limits.memoryKb), String(limits.fileBytes), String(limits.processes),
    run.stdin ?? "-", run.stdout, run.stderr, "--", ...run.argv,
  ];
}

/** Runs the program and returns the kernel's account of it. */
export async function runSandboxed(run: SandboxRun, signal?: AbortSignal): Promise<RunResult> {
  // fd 3 of the runner is a pipe to us: the only channel it reports on, closed to the program.
  const child = Bun.spawn(bwrapArgv(run), { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  // Killing bubblewrap ends its PID namespace, and with it every process the program started.
  const kill = () => child.kill("SIGKILL");
  signal?.addEventListener("abort", kill);
  const [report, diagnostics] = await Promise.all([
    Bun.file(child.stdio[3] as unknown as number).text(),
    new Response(child.stderr as ReadableStream<Uint8Array>).text(),
    child.exited,
  ]).finally(() => signal?.removeEventListener("abort", kill));
  try {
    return { ...(JSON.parse(report) as Omit<RunResult, "lost" | "diagnostics">), lost: false, diagnostics: "" };
  } catch {
    return { exitCode: -1, signal: 0, cpuMs: 0, wallMs: 0, memoryKb: 0, wallExceeded: false, lost: true, diagnostics: diagnostics.slice(0, 2000) };
  }
}

/**
 * Reads a file the program wrote, at most `max` bytes, never through a link and only if it is a
 * regular file: the program controls the work directory and may have planted anything there.
 */
export async function readOutput(workDir: string, name: string, max: number): Promise<{ data: Uint8Array; truncated: boolean; size: number; executable: boolean } | null> {
  let handle;
  try {
    handle = await open(join(workDir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const size = Math.min(info.size, max);
    const buffer = new Uint8Array(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return { data: buffer.subarray(0, bytesRead), truncated: info.size > max, size: info.size, executable: (info.mode & 0o111) !== 0 };
  } finally {
    await handle.close();
  }
}
