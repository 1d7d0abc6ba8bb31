import type { FrameReader } from "./frames";
import type { LayoutEntry } from "./stage";
import { STDERR_KEEP_BYTES, type Limits, type PeerResult, type RunResult, type TakenFile } from "./sandbox";

/**
 * The wire between the judge and a container's runner (runner.c's header): a request of NUL-terminated
 * fields, and a reply of a JSON header, the kept output, the files read back from /work, and a trailer.
 */

/** An interactive case's interactor (runner-pair.c): its command, its directory under /work, its own limits. */
export interface PeerRun {
  argv: string[];
  /** Absolute, under /work: hidden from the program. */
  dir: string;
  cpuMs: number;
  memoryKb: number;
}

/** What a request asks beside its limits: the command, its input, /work's layout, the files to read back. */
export interface RequestParts {
  argv: string[];
  /** A file under /work fed to stdin, or null for empty input. */
  stdin: string | null;
  limits: Limits;
  keepStdout?: number;
  peer?: PeerRun;
  layout: LayoutEntry[];
  take: readonly string[];
  takeMax: number;
}

export interface ReplyHeader {
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
  taken: number;
  dropped: number;
  peer?:
    | (Omit<PeerResult, "stderr" | "stderrTruncated" | "first"> & { stderrBytes: number; stderrKept: number })
    | null;
  peerFirst?: boolean;
}

export interface Reply {
  header: ReplyHeader;
  stdout: Uint8Array;
  stderr: Uint8Array;
  peerStderr: Uint8Array;
  files: Map<string, TakenFile>;
}

/** The runner's word once it has reset the container after a run: whether it may take another. */
export interface Trailer {
  clean: boolean;
  why: string;
}

/** A request as runner.c reads it: a little-endian u32 length, then NUL-terminated fields. */
export function requestOf(run: RequestParts): Uint8Array {
  const { limits, peer } = run;
  const pair = peer ? ["pair", peer.cpuMs, peer.memoryKb, peer.dir, peer.argv.length, ...peer.argv] : [];
  const layout = run.layout.flatMap((e) => [e.how, e.stage, e.path, e.mode.toString(8)]);
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
    run.layout.length,
    ...layout,
    run.takeMax,
    run.take.length,
    ...run.take,
    ...run.argv,
  ].map(String);
  for (const field of fields) if (field.includes("\0")) throw new Error("a sandbox argument holds a NUL byte");
  const body = new TextEncoder().encode(`${fields.join("\0")}\0`);
  const message = new Uint8Array(4 + body.length);
  new DataView(message.buffer).setUint32(0, body.length, true);
  message.set(body, 4);
  return message;
}

const u32 = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
/** A name the runner read from /work is bytes; one that is not UTF-8 names nothing the judge asked for. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

async function frame(replies: FrameReader): Promise<unknown> {
  const size = await replies.read(4);
  const json = size && (await replies.read(u32(size)));
  return json ? JSON.parse(new TextDecoder().decode(json)) : null;
}

async function takenFiles(replies: FrameReader, count: number): Promise<Map<string, TakenFile> | null> {
  const files = new Map<string, TakenFile>();
  for (let i = 0; i < count; i++) {
    const length = await replies.read(4);
    const name = length && (await replies.read(u32(length)));
    const executable = name && (await replies.read(1));
    const size = executable && (await replies.read(4));
    const bytes = size && (await replies.read(u32(size)));
    if (!name || !executable || !bytes) return null;
    let path: string;
    try {
      path = strictUtf8.decode(name);
    } catch {
      continue;
    }
    files.set(path, { bytes, executable: executable[0] === 1 });
  }
  return files;
}

/** One reply, or null when the stream ended first (the container died). Its trailer follows (readTrailer). */
export async function readReply(replies: FrameReader): Promise<Reply | null> {
  const header = (await frame(replies)) as ReplyHeader | null;
  if (!header) return null;
  const stdout = await replies.read(header.stdoutKept);
  const stderr = await replies.read(header.stderrKept);
  const peerStderr = header.peer ? await replies.read(header.peer.stderrKept) : new Uint8Array();
  if (!stdout || !stderr || !peerStderr) return null;
  const files = await takenFiles(replies, header.taken);
  return files && { header, stdout, stderr, peerStderr, files };
}

/** A reply's trailer, or null when the stream ended first. */
export const readTrailer = async (replies: FrameReader) => (await frame(replies)) as Trailer | null;

/** What the slot's cgroup counted of a run (cgroups.ts). */
type Account = Pick<RunResult, "cpuMs" | "memoryKb" | "oomKilled">;

/** What a set-up stage the runner names means, for the judge's log and the record's system error. */
const STAGES: Record<string, string> = {
  w: "the run's files could not be laid out in /work",
  n: "the run's namespaces could not be made",
};

/** A run the container lost (no reply, or processes the kill could not end): the slot is at fault. */
export function lostResult(account: Account, diagnostics: string): RunResult {
  return {
    ...account,
    exitCode: -1,
    signal: 9,
    wallMs: 0,
    wallExceeded: false,
    lost: true,
    outputExceeded: false,
    stdout: new Uint8Array(),
    stderr: new Uint8Array(),
    stderrTruncated: false,
    files: new Map(),
    filesDropped: 0,
    diagnostics,
  };
}

/** A run as its reply tells it. */
export function resultOf(reply: Reply, account: Account): RunResult {
  const { header, stdout, stderr, peerStderr, files } = reply;
  const peer: PeerResult | undefined = header.peer
    ? {
        ...header.peer,
        stderr: peerStderr,
        stderrTruncated: header.peer.stderrBytes > peerStderr.length,
        first: header.peerFirst === true,
      }
    : undefined;
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
    files,
    filesDropped: header.dropped,
  };
  // exec failing is the program's business (no such file), like a shell's 127; any other stage is the sandbox's.
  if (header.setupFailed === "e") return { ...base, exitCode: 127, lost: false, diagnostics: "" };
  if (header.setupFailed) {
    const stage = STAGES[header.setupFailed] ?? `set-up failed at stage ${header.setupFailed}`;
    return { ...base, lost: true, diagnostics: `runner: ${stage}` };
  }
  return { ...base, lost: false, diagnostics: "" };
}
