import { openSync } from "node:fs";
import { closeFds, type RunCgroup } from "./cgroups/cgroups";
import { FrameReader } from "./frames";
import { killSlotProcesses, RunStop } from "./slot-processes";
import { bwrapArgv, BWRAP_ENV, type Limits, type RunResult } from "./sandbox";
import { lostResult, readReply, readTrailer, requestOf, resultOf, type PeerRun, type Reply } from "./container-wire";
import { ResetAhead } from "./reset-ahead";
import { Stage, type WorkFile } from "./stage";

export type { PeerRun };

/**
 * A judge slot's container: one bubblewrap sandbox (namespaces, mounts, the runner as PID 1) that lives
 * as long as the slot and runs every compile, case and checker of it, each as a fork inside (runner.c).
 * Setting up a sandbox cost ~7.6 ms a run; a fork in a living one costs well under one (docs/benchmarks.md).
 * Nothing a run leaves reaches the next (docs/judge.md "The container and its reset rules"):
 * each run gets a /work of its own, laid out from the slot's stage (stage.ts) and unmounted after it, its
 * own PID and mount namespaces, and the runner resets /tmp, /dev/shm and IPC; before each run the slot's
 * cgroup must hold no process and (near) no memory. The runner resets after its reply and says whether
 * the container is clean in a trailer, which the next run waits for (so the reset costs a run nothing
 * while the judge compares and reports). A container that says it is not clean, that fails, or whose run
 * is stopped from outside is thrown away, never reused; the next run starts a new one.
 */

export interface ContainerOptions {
  runner: string;
  /** The host directory each run's files are staged in (stage.ts), bound read-only at /.stage. */
  stageDir: string;
  uid: number;
  cgroup: RunCgroup;
  /** Size of each run's /work, and of the container's /tmp and /dev/shm. */
  tmpBytes: number;
}

export interface ContainerRun {
  argv: string[];
  /** A file under /work fed to stdin, or null for empty input. */
  stdin: string | null;
  limits: Limits;
  /** How much of stdout to keep (default: all of it up to `fileBytes`, for comparison). */
  keepStdout?: number;
  /** How long past `limits.wallMs` the run may go before it is killed from outside (default 10 s). */
  overdueMs?: number;
  /** An interactive case's interactor, run beside the program: each one's stdout the other's stdin. */
  peer?: PeerRun;
  /** The run's files in /work: bound read-only, or copied writable (stage.ts). */
  files?: readonly WorkFile[];
  /** Empty directories made in /work, writable (a Kattis validator's feedback directory). */
  dirs?: readonly string[];
  /** Files read back from /work after the run ("*": every regular file), in RunResult.files. */
  take?: readonly string[];
  /** The most bytes of each file read back (with "*", of them all); default: the output limit. */
  takeMax?: number;
}

/** How long past its wall clock a run may go (a container's start, the runner's kill) before it is killed. */
const OVERDUE_MS = 10_000;
const DIAGNOSTICS_KEEP = 2000;

export class Container {
  private readonly child: ReturnType<typeof Bun.spawn>;
  private readonly replies: FrameReader;
  private diagnostics = "";
  private closed = false;
  /** Whether the container may take another run. */
  get usable(): boolean {
    return !this.closed;
  }

  private readonly stage: Stage;
  private readonly resets: ResetAhead;
  /** The last run's trailer, until the next run (or ready()) reads it: true when the container is clean. */
  private settling: Promise<boolean> | null = null;

  private constructor(private readonly options: ContainerOptions) {
    this.stage = new Stage(options.stageDir, options.tmpBytes);
    this.resets = new ResetAhead(options.cgroup);
    const fds = options.cgroup.open();
    // The runner is copied into the container from a descriptor: a bind would show its host path in
    // the program's /proc/self/mountinfo.
    const runnerFd = openSync(options.runner, "r");
    try {
      // setuid/setgid and no supplementary groups or capabilities, before bubblewrap even starts.
      this.child = Bun.spawn(
        bwrapArgv(
          3 + fds.length,
          options.stageDir,
          fds.map((_, i) => 3 + i),
          options.tmpBytes,
        ),
        {
          uid: options.uid,
          gid: options.uid,
          env: { ...BWRAP_ENV },
          stdio: ["pipe", "pipe", "pipe", ...fds, runnerFd],
        },
      );
    } finally {
      closeFds([...fds, runnerFd]);
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

  /**
   * Whether the container may take another run, once the runner has reset it after the last one and said
   * so (a runner that says nothing in time, or says it is not clean, closes it).
   */
  async ready(): Promise<boolean> {
    const settling = this.settling;
    this.settling = null;
    if (settling && !(await settling)) await this.close();
    return !this.closed;
  }

  private settle(limits: Limits): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), OVERDUE_MS);
    });
    this.settling = Promise.race([readTrailer(this.replies), late]).then(
      (trailer) => {
        clearTimeout(timer);
        return trailer?.clean === true;
      },
      () => false,
    );
    this.resets.begin(this.settling, limits);
  }

  /**
   * Runs one program; the container is closed when it cannot be trusted with another run. Throws
   * JudgeFault for files /work cannot hold (nothing is run), and CgroupDirty when the slot's cgroup is not
   * empty before the run (the container is closed; the caller renews the group).
   */
  async run(run: ContainerRun, signal?: AbortSignal): Promise<RunResult> {
    const { limits } = run;
    // Staged while the runner resets after the last run.
    const layout = this.stage.prepare(run.files ?? [], run.dirs ?? []);
    if (!(await this.ready())) throw new Error("the container is closed");
    try {
      await this.resets.reset({ memoryKb: limits.memoryKb, processes: limits.processes });
    } catch (error) {
      // A group that cannot be reset, or holds a process or memory a run left, is not run in again: the
      // container goes, and with it every process of the slot's uid.
      await this.close();
      throw error;
    }
    const overdueMs = run.overdueMs ?? OVERDUE_MS;
    // Stopping a run from outside kills the whole container: bubblewrap, then the slot uid's processes.
    const stop = new RunStop(this.child, this.options.uid, limits.wallMs, overdueMs, signal);
    let reply: Reply | null = null;
    let unkilled = "";
    try {
      const stdin = this.child.stdin as import("bun").FileSink;
      const take = run.take ?? [];
      stdin.write(requestOf({ ...run, layout, take, takeMax: run.takeMax ?? limits.fileBytes }));
      await stdin.flush();
      reply = await readReply(this.replies);
    } catch {
      reply = null;
    } finally {
      unkilled = await stop.settle();
    }
    const stopped = stop.killed;
    const account = await this.options.cgroup.finish();
    // A group that cannot be reset (v2 before Linux 6.12) serves one run: its container goes with it.
    if (!reply || stopped || unkilled || !this.options.cgroup.reusable) await this.close();
    else this.settle(limits);
    // Processes the kill could not end: whatever the runner said, the slot is at fault (assertRan, steps.ts).
    if (unkilled) return lostResult(account, `sandbox: ${unkilled}`);
    if (!reply) {
      // No reply: the sandbox failed, or the run was stopped (the judge shutting down, the watchdog).
      const late = stop.overdue ? `sandbox: not ended ${overdueMs} ms past its wall clock; killed from outside` : "";
      const code = await this.child.exited;
      const ended = stop.killed ? "" : `sandbox: the container ended without a reply (exit ${code})`;
      const said = [this.diagnostics.trim(), late, ended].filter(Boolean).join("\n");
      return lostResult(account, said.slice(0, DIAGNOSTICS_KEEP));
    }
    return resultOf(reply, account);
  }

  /** Ends the container and every process of its uid; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.resets.drop();
    try {
      (this.child.stdin as import("bun").FileSink).end();
    } catch {
      // Already gone.
    }
    this.child.kill("SIGKILL");
    await this.child.exited;
    await killSlotProcesses(this.options.uid);
    this.stage.close();
  }
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
