import { readdirSync } from "node:fs";
import { SANDBOX_PATH } from "../../core/sandbox-path";

/**
 * Programs run in a bubblewrap sandbox (a slot's container: container.ts). The threat model (docs/judge.md
 * "The sandbox"): the program is hostile. It gets a /work of its run's own (a size-limited tmpfs holding
 * only its files) and a private size-limited /tmp (and /dev/shm) as the only writable places, read-only
 * system directories (/usr and the links into it; no /etc, /home, /root, /var), no network (Unix sockets
 * only), the runs' PID namespace with a /proc showing its own processes only, private mount, IPC, UTS,
 * user and cgroup namespaces, an
 * unprivileged uid of the judge slot, a new session, a seccomp filter, and a cgroup of its own that
 * limits and measures memory (tmpfs pages included), processes and CPU from outside (cgroups.ts). Its
 * stdout and stderr are sockets to the runner (runner.c), which keeps them with a cap, adds the wall clock
 * and reports how the program ended.
 */

export interface Limits {
  cpuMs: number;
  wallMs: number;
  memoryKb: number;
  /** Most bytes of stdout (or stderr), and the largest file the program may write. */
  fileBytes: number;
  processes: number;
}

/** A file the runner read back from /work after a run (ContainerRun.take). */
export interface TakenFile {
  bytes: Uint8Array;
  executable: boolean;
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
  /** An interactive case's interactor (runner-pair.c), when the run had one. */
  peer?: PeerResult;
  /** The files read back from /work after the run (ContainerRun.take), by path: regular files only. */
  files: Map<string, TakenFile>;
  /** Regular files not read back for a limit (their size, their count). */
  filesDropped: number;
}

/** How the interactor of a pair run ended; it is outside the run's cgroup, so its CPU and memory are its own. */
export interface PeerResult {
  /** False: still running when the run was stopped (the wall clock, a flood). */
  ended: boolean;
  exitCode: number;
  signal: number;
  cpuMs: number;
  /** Its peak resident memory. */
  memoryKb: number;
  /** The stage its start failed at ("e": no such program), or "". */
  setupFailed: string;
  outputExceeded: boolean;
  stderr: Uint8Array;
  stderrTruncated: boolean;
  /** It ended before the program did (so a failure of the program's after that was its consequence). */
  first: boolean;
  /** The program ended on its own (else it was stopped with the run: the wall clock, a flood). */
  programEnded: boolean;
}

/** Uids of judge slots: one per concurrent run, so process limits and signals never cross runs. */
export const SLOT_UID_BASE = 60_000;
/** What a report keeps of stderr (the compiler's, the program's). */
export const STDERR_KEEP_BYTES = 64 * 1024;
/**
 * bubblewrap's own environment: nothing of the judge's. `--clearenv` clears only the command's, so
 * bubblewrap is never spawned with the judge's environment (its settings, its key) to begin with.
 */
export const BWRAP_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: "/usr/bin:/bin" });

/**
 * bubblewrap's command line for a slot's container (container.ts): the runner is PID 1 and serves runs
 * until its requests end; its fds are 0 (requests), 1 (replies), 2 (diagnostics), then the cgroup files.
 * The runner is copied in from `runnerFd` and the stage is bound at /.stage: no mount a program can list
 * in its /proc/self/mountinfo names a directory of the judge's.
 */
export function bwrapArgv(runnerFd: number, stageDir: string, cgroupFds: number[], tmpBytes: number): string[] {
  return [
    // --as-pid-1: the runner is the namespace's init, so no bubblewrap process (which would hold
    // bubblewrap's own environment, readable through /proc/1) lives inside with the program.
    "bwrap",
    "--unshare-all",
    "--as-pid-1",
    "--die-with-parent",
    "--new-session",
    // In the container's own user namespace only: the runner mounts each run's /work, /tmp and
    // namespaces with it; the program never has it (runner.c drops every capability before exec).
    "--cap-add",
    "CAP_SYS_ADMIN",
    "--hostname",
    "judge",
    "--clearenv",
    "--setenv",
    "PATH",
    SANDBOX_PATH.join(":"),
    // Not /work: a tool that reads settings from its home (Go's env file, Python's user site) must not
    // find the submission's. /tmp is empty when a run starts.
    "--setenv",
    "HOME",
    "/tmp",
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
    // The JDK's configuration (its conf/ links there): the java preset.
    ...javaConfigDirs().flatMap((dir) => ["--ro-bind", dir, dir]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // Where the runner mounts the container's /tmp and each run's /work (runner.c).
    "--dir",
    "/tmp",
    "--dir",
    "/work",
    "--ro-bind",
    stageDir,
    "/.stage",
    "--perms",
    "0555",
    "--file",
    String(runnerFd),
    "/.runner",
    "--chdir",
    "/work",
    "/.runner",
    cgroupFds.length > 0 ? cgroupFds.join(",") : "-",
    String(tmpBytes),
  ];
}

/** Debian's JDKs keep their configuration (security policy, settings) under /etc/java-<version>-openjdk. */
function javaConfigDirs(): string[] {
  try {
    return readdirSync("/etc")
      .filter((name) => /^java(-[\w.-]+)?$/.test(name))
      .map((name) => `/etc/${name}`);
  } catch {
    return [];
  }
}
