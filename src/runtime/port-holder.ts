import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** A process holding a TCP port of this machine: its pid, its name and its command line. */
export interface PortHolder {
  pid: number;
  /** /proc/<pid>/comm: the program's short name (`bun`, `postgres`, `python3`). */
  name: string;
  /** /proc/<pid>/cmdline with its arguments separated by spaces; empty where unreadable. */
  commandLine: string;
}

const LISTEN = "0A";

/**
 * Who holds `port`, as Linux's /proc shows it: the socket (a listener first, else any socket bound to the
 * port, such as an outgoing connection that was given it) in /proc/net/tcp and tcp6, then the process with
 * a file descriptor on that socket. Undefined when no socket holds the port any more, or when the process
 * is not ours to read (another user's, without root) or /proc is not Linux's.
 */
export function findPortHolder(port: number, proc = "/proc"): PortHolder | undefined {
  const inodes = socketInodes(port, proc);
  if (inodes.length === 0) return undefined;
  const wanted = new Set(inodes.map((inode) => `socket:[${inode}]`));
  for (const pid of processIds(proc)) {
    if (holdsAny(join(proc, String(pid), "fd"), wanted)) return describe(pid, proc);
  }
  return undefined;
}

/** The holder for a person to read: `pid 4242 (python3: python3 -m http.server 34765)`. */
export function describePortHolder(port: number, proc = "/proc"): string {
  const holder = findPortHolder(port, proc);
  if (!holder) return "another process (not readable here)";
  const command = holder.commandLine && holder.commandLine !== holder.name ? `: ${holder.commandLine}` : "";
  return `pid ${holder.pid} (${holder.name}${command})`;
}

/** The inodes of the sockets bound to `port`, listeners first. */
function socketInodes(port: number, proc: string): string[] {
  const listening: string[] = [];
  const other: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const line of readLines(join(proc, "net", table)).slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      const fields = line.trim().split(/\s+/);
      const local = fields[1] ?? "";
      const inode = fields[9];
      if (!inode || inode === "0" || Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) !== port) continue;
      (fields[3] === LISTEN ? listening : other).push(inode);
    }
  }
  return [...listening, ...other];
}

function processIds(proc: string): number[] {
  try {
    return readdirSync(proc)
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/** Whether a descriptor in `fdDir` links to one of the sockets; a process gone or not ours reads as no. */
function holdsAny(fdDir: string, sockets: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(fdDir);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (sockets.has(readlinkSync(join(fdDir, fd)))) return true;
    } catch {
      // closed while we looked
    }
  }
  return false;
}

function describe(pid: number, proc: string): PortHolder {
  const name = readText(join(proc, String(pid), "comm")).trim() || "unknown";
  const commandLine = readText(join(proc, String(pid), "cmdline"))
    .split("\0")
    .filter(Boolean)
    .join(" ");
  // A long command line (a JVM's class path) would bury the message it sits in.
  return { pid, name, commandLine: commandLine.length > 200 ? `${commandLine.slice(0, 200)}…` : commandLine };
}

function readLines(file: string): string[] {
  return readText(file).split("\n").filter(Boolean);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
