import { closeFds, type RunCgroup } from "./cgroups";
import { FrameReader } from "./frames";
import { killSlotProcesses, RunStop } from "./slot-processes";
import { bwrapArgv, BWRAP_ENV, STDERR_KEEP_BYTES, type Limits, type PeerResult, type RunResult } from "./sandbox";

/**
 * A judge slot's container: one bubblewrap sandbox (namespaces, mounts, the runner as PID 1) that lives
 * as long as the slot and runs every compile, case and checker of it, each as a fork inside (runner.c).
 * Setting up a sandbox cost ~7.6 ms a run; a fork in a living one costs well under one (README,
 * "Benchmarks"). What a run may leave behind is reset before the next (README, "The container and its
 * reset rules"): /work by the judge on the host (slotWorkDir), /tmp, /dev/shm and IPC by a fresh mount and
 * IPC namespace per run, processes by the runner, the cgroup's counters by RunCgroup.reset. A container
 * that says it is not clean, that fails, or whose run is stopped from outside is thrown away, never
 * reused; the next run starts a new one.
 */

export interface ContainerOptions {
  runner: string;
  /** The host directory mounted at /work; the judge empties and fills it before each run. */
  workDir: string;
  uid: number;
  cgroup: RunCgroup;
  /** Size of the container's /tmp and /dev/shm (each made anew after a run that wrote to it). */
  tmpBytes: number;
}

export interface ContainerRun {
  argv: string[];
  /** A file in the work directory fed to stdin, or null for empty input. */
  stdin: string | null;
  limits: Limits;
  /** How much of stdout to keep (default: all of it up to `fileBytes`, for comparison). */
  keepStdout?: number;
  /** How long past `limits.wallMs` the run may go before it is killed from outside (default 10 s). */
  overdueMs?: number;
  /** An interactive case's interactor, run beside the program: each one's stdout the other's stdin. */
  peer?: PeerRun;
}

/** The interactor of a pair run (runner-pair.c): its command, its directory under /work, its own limits. */
export interface PeerRun {
  argv: string[];
  /** Absolute, under /work: hidden from the program. */
  dir: string;
  cpuMs: number;
  memoryKb: number;
}

/** How long past its wall clock a run may go (a container's start, the runner's kill) before it is killed. */
const OVERDUE_MS = 10_000;
const DIAGNOSTICS_KEEP = 2000;

interface Reply {
  exitCode: number;
  signal: number;
  wallMs: number;
  wallExceeded: boolean;
  setupFailed: string;
  outputExceeded: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  stdoutKept: number;
  stderrKept: number;
  clean: boolean;
  why: string;
  peer?: Omit<PeerResult, "stderr" | "stderrTruncated" | "first"> & { stderrBytes: number; stderrKept: number };
  peerFirst?: boolean;
}

export class Container {
  private readonly child: ReturnType<typeof Bun.spawn>;
  private readonly replies: FrameReader;
  private diagnostics = "";
  private closed = false;
  /** Whether the container may take another run. */
  get usable(): boolean {
    return !this.closed;
  }

  private constructor(private readonly options: ContainerOptions) {
    const fds = options.cgroup.open();
    try {
      // setuid/setgid and no supplementary groups or capabilities, before bubblewrap even starts.
      this.child = Bun.spawn(
        bwrapArgv(
          options.runner,
          options.workDir,
          fds.map((_, i) => 3 + i),
          options.tmpBytes,
        ),
        {
          uid: options.uid,
          gid: options.uid,
          env: { ...BWRAP_ENV },
          stdio: ["pipe", "pipe", "pipe", ...fds],
        },
      );
    } finally {
      closeFds(fds);
    }
    this.replies = new FrameReader(this.child.stdout as ReadableStream<Uint8Array>);
    void this.collectDiagnostics(this.child.stderr as ReadableStream<Uint8Array>);
  }

  static start(options: ContainerOptions): Container {
    return new Container(options);
  }

  private async collectDiagnostics(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream)
      this.diagnostics = (this.diagnostics + decoder.decode(chunk)).slice(-DIAGNOSTICS_KEEP);
  }

  /** Runs one program; the container is closed when it cannot be trusted with another run. */
  async run(run: ContainerRun, signal?: AbortSignal): Promise<RunResult> {
    if (this.closed) throw new Error("the container is closed");
    const { limits } = run;
    try {
      await this.options.cgroup.reset({ memoryKb: limits.memoryKb, processes: limits.processes });
    } catch (error) {
      // A group that cannot be reset (a process left in it) is not run in again: the container goes,
      // and with it every process of the slot's uid; the next run starts afresh.
      await this.close();
      throw error;
    }
    const overdueMs = run.overdueMs ?? OVERDUE_MS;
    // Stopping a run from outside kills the whole container: bubblewrap, then the slot uid's processes.
    const stop = new RunStop(this.child, this.options.uid, limits.wallMs, overdueMs, signal);
    let reply: Awaited<ReturnType<Container["readReply"]>> = null;
    let unkilled = "";
    try {
      const stdin = this.child.stdin as import("bun").FileSink;
      stdin.write(requestOf(run));
      await stdin.flush();
      reply = await this.readReply();
    } catch {
      reply = null;
    } finally {
      unkilled = await stop.settle();
    }
    const stopped = stop.killed;
    const account = await this.options.cgroup.finish();
    // A group that cannot be reset (v2 before Linux 6.12) serves one run: its container goes with it.
    if (!reply || stopped || !reply.header.clean || unkilled || !this.options.cgroup.reusable) await this.close();
    const lost = { exitCode: -1, signal: 9, wallMs: 0, wallExceeded: false, lost: true };
    const empty = { outputExceeded: false, stdout: new Uint8Array(), stderr: new Uint8Array(), stderrTruncated: false };
    // Processes the kill could not end: whatever the runner said, the slot is at fault (assertRan, steps.ts).
    if (unkilled) return { ...account, ...empty, ...lost, diagnostics: `sandbox: ${unkilled}` };
    if (!reply) {
      // No reply: the sandbox failed, or the run was stopped (the judge shutting down, the watchdog).
      const late = stop.overdue ? `sandbox: not ended ${overdueMs} ms past its wall clock; killed from outside` : "";
      const code = await this.child.exited;
      const ended = stop.killed ? "" : `sandbox: the container ended without a reply (exit ${code})`;
      const said = [this.diagnostics.trim(), late, ended].filter(Boolean).join("\n");
      return { ...account, ...empty, ...lost, diagnostics: said.slice(0, DIAGNOSTICS_KEEP) };
    }
    const { header, stdout, stderr, peerStderr } = reply;
    const peer: PeerResult | undefined = header.peer && {
      ...header.peer,
      stderr: peerStderr,
      stderrTruncated: header.peer.stderrBytes > peerStderr.length,
      first: header.peerFirst === true,
    };
    const base = {
      ...(peer ? { peer } : {}),
      ...account,
      exitCode: header.exitCode,
      signal: header.signal,
      wallMs: header.wallMs,
      wallExceeded: header.wallExceeded,
      outputExceeded: header.outputExceeded,
      stdout,
      stderr,
      stderrTruncated: header.stderrBytes > stderr.length,
    };
    // exec failing is the program's business (no such file), like a shell's 127; any other stage is the sandbox's.
    if (header.setupFailed === "e") return { ...base, exitCode: 127, lost: false, diagnostics: "" };
    if (header.setupFailed)
      return { ...base, lost: true, diagnostics: `runner: set-up failed at stage ${header.setupFailed}` };
    return { ...base, lost: false, diagnostics: "" };
  }

  private async readReply(): Promise<{
    header: Reply;
    stdout: Uint8Array;
    stderr: Uint8Array;
    peerStderr: Uint8Array;
  } | null> {
    const size = await this.replies.read(4);
    if (!size) return null;
    const json = await this.replies.read(new DataView(size.buffer, size.byteOffset, 4).getUint32(0, true));
    if (!json) return null;
    const header = JSON.parse(new TextDecoder().decode(json)) as Reply;
    const stdout = await this.replies.read(header.stdoutKept);
    const stderr = await this.replies.read(header.stderrKept);
    const peerStderr = header.peer ? await this.replies.read(header.peer.stderrKept) : new Uint8Array();
    return stdout && stderr && peerStderr ? { header, stdout, stderr, peerStderr } : null;
  }

  /** Ends the container and every process of its uid; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      (this.child.stdin as import("bun").FileSink).end();
    } catch {
      // Already gone.
    }
    this.child.kill("SIGKILL");
    await this.child.exited;
    await killSlotProcesses(this.options.uid);
  }
}

/** A request as runner.c reads it: a little-endian u32 length, then NUL-terminated fields. */
export function requestOf(run: ContainerRun): Uint8Array {
  const { limits, peer } = run;
  const pair = peer ? ["pair", peer.cpuMs, peer.memoryKb, peer.dir, peer.argv.length, ...peer.argv] : [];
  const fields = [
    ...pair,
    limits.wallMs,
    limits.cpuMs,
    limits.memoryKb,
    limits.fileBytes,
    limits.processes,
    run.keepStdout ?? limits.fileBytes,
    STDERR_KEEP_BYTES,
    run.stdin ?? "-",
    ...run.argv,
  ].map(String);
  for (const field of fields) if (field.includes("\0")) throw new Error("a sandbox argument holds a NUL byte");
  const body = new TextEncoder().encode(`${fields.join("\0")}\0`);
  const message = new Uint8Array(4 + body.length);
  new DataView(message.buffer).setUint32(0, body.length, true);
  message.set(body, 4);
  return message;
}

/** One run in a container of its own, closed after it (the self-check, tests of the isolation itself). */
export async function runSandboxed(run: ContainerOptions & ContainerRun, signal?: AbortSignal): Promise<RunResult> {
  const container = Container.start(run);
  try {
    return await container.run(run, signal);
  } finally {
    await container.close();
  }
}
