import { randomBytes } from "node:crypto";
import { runInSlot } from "./slots";
import type { SlotPool } from "./slots";

/**
 * The judge's start-up self-check: before it takes work, the probe (probe.c) runs in a sandbox exactly
 * as a submission would, and the judge refuses to start if the probe can read any process but itself,
 * any variable beyond the sandbox's own, or any of the judge's settings. It guards the sandbox against
 * a bubblewrap or a kernel that behaves differently from the one it was tested on. It runs once as a
 * plain program and once as an interactive case's, whose namespaces are its own.
 */

/** The only variables a sandboxed program may have: bwrapArgv's --setenv, and bubblewrap's PWD. */
const SANDBOX_VARIABLES = new Set(["PATH", "HOME", "LANG", "PWD"]);
/** Where the probe's interactor runs (a directory the runner hides from the program, as an interactor's). */
const PEER_DIR = ".peer";
/** PID 1, the runs' init: hidden (hidepid); were it seen, nothing of it may be readable. */
const INIT_PID = 1;

interface Look {
  pid: number;
  self: boolean;
  what: string;
  ok: boolean;
  data: string;
}

function parse(output: string): Look[] {
  const looks: Look[] = [];
  for (const line of output.split("\n")) {
    const [pid, who, what, status, hex = ""] = line.split(" ");
    if (!what || !status) continue;
    looks.push({
      pid: Number(pid),
      self: who === "self",
      what,
      ok: status === "ok",
      data: Buffer.from(hex, "hex").toString("latin1"),
    });
  }
  return looks;
}

/** What is wrong with the probe's report: empty when the sandbox holds. Pure, so tests feed it reports. */
export function judgeProbeReport(output: string, secrets: readonly string[]): string[] {
  const looks = parse(output);
  const problems = new Set<string>();
  if (!looks.some((look) => look.self)) problems.add("the probe did not see itself: it did not run");
  for (const look of looks) {
    const seen = secrets.find((secret) => secret.length > 0 && look.data.includes(secret));
    if (seen !== undefined) problems.add(`the probe read a setting of the judge in /proc/${look.pid}/${look.what}`);
    if (look.self) {
      if (look.what !== "environ") continue;
      const names = look.data
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split("=", 1)[0]);
      const extra = names.filter((name) => !SANDBOX_VARIABLES.has(name));
      if (extra.length > 0) problems.add(`a sandboxed program has variables it should not: ${extra.join(", ")}`);
      continue;
    }
    if (look.pid !== INIT_PID) problems.add(`the probe sees process ${look.pid}, which it did not start`);
    const readable = look.what === "cmdline" ? look.data.split("\0").filter(Boolean).length > 1 : look.ok;
    if (readable) problems.add(`the probe can read /proc/${look.pid}/${look.what}`);
  }
  return [...problems];
}

/** Runs the probe in one of the pool's slots; throws with every problem found. */
export async function selfCheck(
  tools: { runner: string; probe: string },
  pool: SlotPool,
  tmpBytes: number,
  secrets: readonly string[],
): Promise<void> {
  // A value only this check knows, in the judge's own environment: were the environment ever to travel
  // into the sandbox again, the probe would find it.
  const canary = `joj-canary-${randomBytes(12).toString("hex")}`;
  process.env.JOJ_SELF_CHECK_CANARY = canary;
  const slot = await pool.acquire();
  try {
    // The slot's own container, which then serves the slot's runs: the probe checks what programs will meet.
    const limits = { cpuMs: 2000, wallMs: 5000, memoryKb: 64 * 1024, fileBytes: 1 << 20, processes: 4 };
    const toolbox = { runner: tools.runner, settings: { diskBytes: tmpBytes } };
    const files = [{ path: "probe", mode: 0o755, hostPath: tools.probe }];
    const run = await runInSlot(slot, toolbox, { argv: ["./probe"], stdin: null, limits, files });
    if (run.lost || run.exitCode !== 0) {
      throw new Error(
        `the sandbox does not work on this machine: ${run.diagnostics || `the probe exited ${run.exitCode}`}`,
      );
    }
    const problems = judgeProbeReport(new TextDecoder().decode(run.stdout), [...secrets, canary]);
    // The same probe as an interactive case's program (runner-pair.c): its own namespaces, where only it and
    // its keeper are to be seen; an interactor passes its report on through the interactor's stderr.
    const peer = {
      argv: ["/bin/sh", "-c", "cat >&2"],
      dir: `/work/${PEER_DIR}`,
      cpuMs: 2000,
      memoryKb: 256 * 1024,
    };
    const pairRun = { argv: ["./probe"], stdin: null, limits, peer, files, dirs: [PEER_DIR] };
    const paired = await runInSlot(slot, toolbox, pairRun);
    if (paired.lost || paired.exitCode !== 0 || paired.peer?.exitCode !== 0) {
      const said = paired.diagnostics || `the probe exited ${paired.exitCode}, the interactor ${paired.peer?.exitCode}`;
      throw new Error(`interactive cases cannot run on this machine: ${said}`);
    }
    for (const problem of judgeProbeReport(new TextDecoder().decode(paired.peer.stderr), [...secrets, canary]))
      problems.push(`${problem} (as an interactive case's program)`);
    if (problems.length > 0) {
      throw new Error(
        `the sandbox would let a submitted program see what it must not:\n  - ${problems.join("\n  - ")}\n` +
          "Check the bubblewrap version (0.8 or newer, with --as-pid-1) and the kernel; " +
          'see docs/judge.md "The sandbox".',
      );
    }
  } finally {
    delete process.env.JOJ_SELF_CHECK_CANARY;
    pool.release(slot);
  }
}
