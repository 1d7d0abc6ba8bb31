import { createHash } from "node:crypto";
import { chmod, chown, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { constants } from "node:fs";
import { join } from "node:path";
import { closeFds, type RunCgroup } from "./cgroups";
import { RunStop } from "./slot-processes";

/**
 * One program run in a bubblewrap sandbox. The threat model (see README "The sandbox"): the program is
 * hostile. It gets a fresh work directory (mounted at /work, on the slot's size-limited tmpfs) and a
 * private size-limited /tmp as the only writable places, read-only system directories (/usr and the
 * links into it; no /etc, /home, /root, /var), no network, private PID/IPC/UTS/user/cgroup namespaces,
 * an unprivileged uid of the judge slot, a new session, a seccomp filter, and a cgroup of its own that
 * limits and measures memory (tmpfs pages included), processes and CPU from outside (cgroups.ts). Its
 * stdout and stderr are pipes to the judge, read here with a cap; the runner (runner.c) adds the wall
 * clock and reports how the program ended.
 */

export interface Limits {
  cpuMs: number;
  wallMs: number;
  memoryKb: number;
  /** Most bytes of stdout (or stderr), and the largest file the program may write. */
  fileBytes: number;
  processes: number;
}

export interface RunResult {
  exitCode: number;
  signal: number;
  /** CPU time of the program's whole process tree (its cgroup), in ms. */
  cpuMs: number;
  wallMs: number;
  /** Peak memory of the program's cgroup (every process, and the tmpfs pages it wrote), in KiB. */
  memoryKb: number;
  wallExceeded: boolean;
  /** The kernel's OOM killer ended a process of the run: it needed more than its memory limit. */
  oomKilled: boolean;
  /** stdout or stderr passed `fileBytes`; the run was stopped there. */
  outputExceeded: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
  stderrTruncated: boolean;
  /** The runner did not report, or the program could not be started: the sandbox's fault, not the program's. */
  lost: boolean;
  /** What bubblewrap or the runner said when the run was lost. */
  diagnostics: string;
}

const RUNNER_SOURCE = join(import.meta.dir, "runner.c");
const PROBE_SOURCE = join(import.meta.dir, "probe.c");
/** Part of the cache key: a change of how a helper is built builds it again. */
const HELPER_BUILD = "gcc -O2 [-static]";
/** Uids of judge slots: one per concurrent run, so process limits and signals never cross runs. */
export const SLOT_UID_BASE = 60_000;
/** How long past its wall clock a run may go (bubblewrap's set-up, the runner's kill) before it is killed. */
const OVERDUE_MS = 10_000;
/** What a report keeps of stderr (the compiler's, the program's). */
export const STDERR_KEEP_BYTES = 64 * 1024;
/**
 * bubblewrap's own environment: nothing of the judge's. `--clearenv` clears only the command's, so
 * bubblewrap is never spawned with the judge's environment (its settings, its key) to begin with.
 */
export const BWRAP_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: "/usr/bin:/bin" });

/** Compiles the runner once per source version into `dir` (gcc and libseccomp are judge requirements). */
export function ensureRunner(dir: string): Promise<string> {
  return ensureHelper(dir, "runner", RUNNER_SOURCE, ["-lseccomp"]);
}

/** The start-up probe (probe.c), run in the sandbox by the self-check (self-check.ts). */
export function ensureProbe(dir: string): Promise<string> {
  return ensureHelper(dir, "probe", PROBE_SOURCE, []);
}

async function ensureHelper(dir: string, name: string, sourcePath: string, libraries: string[]): Promise<string> {
  const source = await readFile(sourcePath);
  const digest = createHash("sha256").update(source).update(HELPER_BUILD).update(libraries.join(" ")).digest("hex");
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
    Bun.spawn(["gcc", "-O2", ...extra, "-o", temp, sourcePath, ...libraries], {
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

/** A fresh work directory owned by the slot's uid (the program may write only here and in /tmp). */
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
  limits: Limits;
  uid: number;
  cgroup: RunCgroup;
  /** Size of the private /tmp. */
  tmpBytes: number;
  /** How much of stdout to keep (default: all of it up to `fileBytes`, for comparison). */
  keepStdout?: number;
  /** How long past `limits.wallMs` the run may go before it is killed from outside (default 10 s). */
  overdueMs?: number;
}

/** bubblewrap's command line; the runner's fds are 1 (stdout), 3 (report), 4 (stderr), then the cgroup files. */
export function bwrapArgv(run: SandboxRun, cgroupFds: number[]): string[] {
  const { limits } = run;
  return [
    // --as-pid-1: the runner is the namespace's init, so no bubblewrap process (which would hold
    // bubblewrap's own environment, readable through /proc/1) lives inside with the program.
    "bwrap",
    "--unshare-all",
    "--as-pid-1",
    "--die-with-parent",
    "--new-session",
    "--hostname",
    "judge",
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/work",
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/sbin",
    "/sbin",
    // Compilers are reached through Debian's alternatives links.
    "--ro-bind-try",
    "/etc/alternatives",
    "/etc/alternatives",
    "--ro-bind-try",
    "/etc/ld.so.cache",
    "/etc/ld.so.cache",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(run.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    run.runner,
    "/.runner",
    "--bind",
    run.workDir,
    "/work",
    "--chdir",
    "/work",
    "/.runner",
    String(limits.wallMs),
    String(limits.cpuMs),
    String(limits.memoryKb),
    String(limits.fileBytes),
    String(limits.processes),
    cgroupFds.length > 0 ? cgroupFds.join(",") : "-",
    run.stdin ?? "-",
    "--",
    ...run.argv,
  ];
}

interface Captured {
  data: Uint8Array;
  size: number;
}

/** Reads a stream, keeping the first `keep` bytes; calls `over` once it passes `limit` and stops reading. */
async function capture(
  stream: ReadableStream<Uint8Array>,
  keep: number,
  limit: number,
  over: () => void,
): Promise<Captured> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (kept < keep) {
      const part = chunk.subarray(0, keep - kept);
      chunks.push(part);
      kept += part.length;
    }
    if (size > limit) {
      over();
      break;
    }
  }
  return { data: Buffer.concat(chunks), size };
}

/** Runs the program and returns what the kernel counted (cgroup) and how it ended (runner). */
export async function runSandboxed(run: SandboxRun, signal?: AbortSignal): Promise<RunResult> {
  const fds = await run.cgroup.prepare({ memoryKb: run.limits.memoryKb, processes: run.limits.processes });
  const cgroupFds = fds.map((_, i) => 5 + i);
  let child: ReturnType<typeof Bun.spawn>;
  try {
    // setuid/setgid and no supplementary groups or capabilities, before bubblewrap even starts.
    child = Bun.spawn(bwrapArgv(run, cgroupFds), {
      uid: run.uid,
      gid: run.uid,
      env: { ...BWRAP_ENV },
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", ...fds],
    });
  } finally {
    closeFds(fds);
  }
  // Killing bubblewrap ends its PID namespace, and with it every process the program started; what a
  // kill during bubblewrap's set-up leaves behind goes with the slot uid's processes (slot-processes.ts).
  const stop = new RunStop(child, run.uid, run.limits.wallMs, run.overdueMs ?? OVERDUE_MS, signal);
  let outputExceeded = false;
  const flooded = () => {
    outputExceeded = true;
    stop.kill();
  };
  const { fileBytes } = run.limits;
  let unkilled = "";
  let parts: [Captured, Captured, string, string, number];
  try {
    parts = await Promise.all([
      capture(child.stdout as ReadableStream<Uint8Array>, run.keepStdout ?? fileBytes, fileBytes, flooded),
      capture(Bun.file(child.stdio[4] as unknown as number).stream(), STDERR_KEEP_BYTES, fileBytes, flooded),
      Bun.file(child.stdio[3] as unknown as number).text(),
      new Response(child.stderr as ReadableStream<Uint8Array>).text(),
      child.exited,
    ]);
  } finally {
    unkilled = await stop.settle();
  }
  const [stdout, stderr, report, diagnostics] = parts;
  const account = await run.cgroup.finish();
  const base = {
    ...account,
    outputExceeded,
    stdout: stdout.data,
    stderr: stderr.data,
    stderrTruncated: stderr.size > stderr.data.length,
  };
  const lost = { exitCode: -1, signal: 9, wallMs: 0, wallExceeded: false, lost: true };
  // Processes the kill could not end: whatever the runner said, the slot is at fault (assertRan, steps.ts).
  if (unkilled) return { ...base, ...lost, diagnostics: `sandbox: ${unkilled}` };
  try {
    const { setupFailed, ...ended } = JSON.parse(report) as {
      exitCode: number;
      signal: number;
      wallMs: number;
      wallExceeded: boolean;
      setupFailed: string;
    };
    // exec failing is the program's business (no such file), like a shell's 127; any other stage is the sandbox's.
    if (setupFailed === "e") return { ...base, ...ended, exitCode: 127, lost: false, diagnostics: "" };
    if (setupFailed)
      return { ...base, ...ended, lost: true, diagnostics: `runner: set-up failed at stage ${setupFailed}` };
    return { ...base, ...ended, lost: false, diagnostics: "" };
  } catch {
    // No report: the sandbox failed, or the run was stopped (a flood, the judge shutting down).
    const grace = run.overdueMs ?? OVERDUE_MS;
    const late = stop.overdue ? `sandbox: not ended ${grace} ms past its wall clock; killed from outside` : "";
    const said = [diagnostics.trim(), late].filter(Boolean).join("\n");
    return { ...base, ...lost, lost: !outputExceeded, diagnostics: said.slice(0, 2000) };
  }
}

/**
 * Reads a file the program wrote, at most `max` bytes, never through a link and only if it is a
 * regular file: the program controls the work directory and may have planted anything there.
 */
export async function readOutput(
  workDir: string,
  name: string,
  max: number,
): Promise<{ data: Uint8Array; truncated: boolean; size: number; executable: boolean } | null> {
  let handle: Awaited<ReturnType<typeof open>>;
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
    return {
      data: buffer.subarray(0, bytesRead),
      truncated: info.size > max,
      size: info.size,
      executable: (info.mode & 0o111) !== 0,
    };
  } finally {
    await handle.close();
  }
}
