import { readdir, readFile } from "node:fs/promises";
import { ensureTemplate } from "../tests/helpers/database";
import { spawnApp, type TestApp } from "../tests/helpers/spawn-app";
import { makeCast, type Cast } from "../tests/helpers/domain-factories";
import { judgeableProblem } from "../tests/helpers/records";

/**
 * A benchmark runs the real app (real PostgreSQL, real Redis, file-system blob store) on a database
 * of its own built from the migrations, like a test file does. Numbers are printed next to a floor
 * measured in the same run, so a slow machine shows as a slow floor, not as a regression.
 */
export async function benchApp(env: Record<string, string> = {}): Promise<{ t: TestApp; cast: Cast; problem: string }> {
  await ensureTemplate();
  // The pool size the API runs with in production (createOrm's default), not the tests' small one.
  const t = await spawnApp({ LOG_LEVEL: "warn", ...env }, { poolMax: 10, quietLogs: true });
  const cast = await makeCast(t);
  const problem = await judgeableProblem(t, cast, {
    categories: Array.from({ length: Number(process.env.CASES ?? 10) }, () => "pretest"),
  });
  return { t, cast, problem };
}

/** Runs `total` tasks with at most `concurrency` in flight; returns the wall time in ms. */
export async function timed(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return performance.now() - started;
}

/**
 * The floor and a measured task taken in turns, `pairs` times, each timed alone: medians of each and of the
 * pairs' differences, and the differences' mean (which counts the rare slow one a median hides). A
 * neighbour's load lands on both sides of a pair alike, where means of separate blocks moved by a
 * millisecond from run to run on a shared 2-CPU VM.
 */
export async function paired(pairs: number, floor: () => Promise<void>, task: () => Promise<void>) {
  await floor();
  await task();
  const floors: number[] = [];
  const tasks: number[] = [];
  const over: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const a = performance.now();
    await floor();
    const b = performance.now();
    await task();
    const c = performance.now();
    floors.push(b - a);
    tasks.push(c - b);
    over.push(c - b - (b - a));
  }
  const mean = over.reduce((sum, x) => sum + x, 0) / over.length;
  return { floor: median(floors), run: median(tasks), over: median(over), meanOver: mean };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1];

export const perSecond = (count: number, ms: number) => (count / ms) * 1000;
export const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 2);

export function report(title: string, rows: [string, string][]): void {
  console.log(`\n${title}`);
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

/**
 * CPU time (µs) used so far by this machine's PostgreSQL server processes, from /proc (Linux; 0 elsewhere).
 * Client and database share the machine's cores, so a route whose statements cost PostgreSQL more
 * answers fewer requests even when this process spends the same per request.
 */
export async function postgresCpu(): Promise<number> {
  let total = 0;
  for (const used of (await postgresCpuByProcess()).values()) total += used;
  return total;
}

/**
 * The same per server process (pid → µs); with `database`, only the connections to it (a backend's title
 * names its database), so that other databases' work on the machine is not counted. A connection that
 * closes takes its CPU time with it, so a difference of two sums can go negative; `postgresCpuSince`
 * counts only what each process used since.
 */
export async function postgresCpuByProcess(database?: string): Promise<Map<number, number>> {
  const pids = await readdir("/proc").catch(() => [] as string[]);
  const used = new Map<number, number>();
  await Promise.all(
    pids
      .filter((p) => /^\d+$/.test(p))
      .map(async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
        // Fields after the command (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
        const close = stat.lastIndexOf(")");
        if (!stat.slice(0, close).endsWith("(postgres")) return;
        if (database && !(await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).includes(` ${database} `))
          return;
        const fields = stat.slice(close + 2).split(" ");
        used.set(Number(pid), (Number(fields[11]) + Number(fields[12])) * 10_000); // USER_HZ is 100 on Linux
      }),
  );
  return used;
}

/** PostgreSQL's CPU time (µs) since `before`, by the processes alive now (one that closed since is not counted). */
export async function postgresCpuSince(before: Map<number, number>, database?: string): Promise<number> {
  let total = 0;
  for (const [pid, used] of await postgresCpuByProcess(database)) total += used - (before.get(pid) ?? 0);
  return total;
}

/**
 * The machine's busy CPU time (ms) so far, every CPU summed, from /proc/stat (Linux; 0 elsewhere): all but
 * idle and I/O wait. On a machine that is otherwise quiet, the difference over a phase is the work that
 * phase cost every process together (the judge, the runner and its programs, the API, PostgreSQL), which
 * its wall time shows only as far as the CPUs were full.
 */
export async function machineBusyMs(): Promise<number> {
  const stat = await readFile("/proc/stat", "utf8").catch(() => "");
  const line = stat.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) return 0;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is inside user already)
  const busy = ticks.slice(0, 8).reduce((sum, t, i) => (i === 3 || i === 4 ? sum : sum + t), 0);
  return busy * 10; // USER_HZ is 100 on Linux
}
