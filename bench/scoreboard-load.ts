import type { SQL } from "bun";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fmt, postgresCpuByProcess, postgresCpuSince } from "./harness";
import { casesSql, totalsSql } from "./scoreboard-fill";

/** `bench:scoreboard`'s servers (each a process of its own), its load from this process, and its judge. */

export interface Server {
  base: string;
  pid: number;
  stop: () => Promise<void>;
}

const running = new Set<Server>();

/** Stops every server still running: a run that failed half-way leaves no process behind. */
export const stopServers = () => Promise.all([...running].map((server) => server.stop()));

/** `bun <script>` (relative to bench/) as a process of its own on a free port, once `probe` answers. */
export async function spawnServer(
  script: string,
  env: Record<string, string>,
  probe: string,
  flags: string[] = [],
): Promise<Server> {
  const port = 42_000 + Math.floor(Math.random() * 8_000);
  const proc = Bun.spawn([process.execPath, "--no-env-file", ...flags, join(import.meta.dir, script)], {
    env: { PATH: process.env.PATH ?? "", HOME: "/tmp", PORT: String(port), ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  const server: Server = {
    base,
    pid: proc.pid,
    stop: async () => {
      running.delete(server);
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
  running.add(server);
  for (let i = 0; i < 300; i++) {
    const up = await fetch(base + probe).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) return server;
    if (proc.exitCode !== null) throw new Error(`${script} exited with ${proc.exitCode}`);
    await Bun.sleep(50);
  }
  throw new Error(`${script} did not answer ${probe}`);
}

/** A process's CPU time so far (µs), from /proc (Linux). */
async function processCpu(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export const get = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** The server process's CPU per request (µs), and PostgreSQL's (the connections to this run's database). */
  cpu: number;
  pg: number;
}

export interface LoadSpec {
  url: string;
  token: string;
  inFlight: number;
  /** The server's process, whose CPU is counted. */
  pid: number;
  database: string;
  seconds: number;
  /** Unmeasured seconds first at the same load: the first requests compile code. */
  warmup: number;
}

/** Requests for `seconds` with `inFlight` in flight: req/s, p50/p99 (ms), CPU per request. */
export async function measureLoad(spec: LoadSpec, measured = true): Promise<Load> {
  if (measured && spec.warmup > 0) await measureLoad(spec, false);
  const seconds = measured ? spec.seconds : spec.warmup;
  const latencies: number[] = [];
  let failures = 0;
  const [cpuBefore, pgBefore] = [await processCpu(spec.pid), await postgresCpuByProcess(spec.database)];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: spec.inFlight }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const response = await get(spec.url, spec.token).catch(() => null);
        await response?.arrayBuffer();
        if (response?.status !== 200) failures++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  const n = latencies.length;
  if (failures > 0 && measured) console.log(`  (${failures} of ${n} requests to ${spec.url} failed)`);
  const cpu = ((await processCpu(spec.pid)) - cpuBefore) / n;
  const pg = (await postgresCpuSince(pgBefore, spec.database)) / n;
  return { rps: (n - failures) / seconds, p50: at(0.5), p99: at(0.99), cpu, pg };
}

const us = (v: number) => (v >= 1000 ? `${fmt(v / 1000)} ms` : `${fmt(v)} µs`);

/** One load's figures next to its floor's, and their ratios. */
export const versus = (app: Load, floor: Load) =>
  `p50 ${fmt(app.p50)} ms, p99 ${fmt(app.p99)} ms, ${fmt(app.rps)} req/s · floor p50 ${fmt(floor.p50)} ms, ` +
  `p99 ${fmt(floor.p99)} ms, ${fmt(floor.rps)} req/s · app ÷ floor: p50 ${fmt(app.p50 / floor.p50)}, ` +
  `req/s ${fmt(app.rps / floor.rps)} · CPU/req app ${us(app.cpu)}, floor ${us(floor.cpu)}; ` +
  `PostgreSQL app ${us(app.pg)}, floor ${us(floor.pg)}`;

/**
 * A judge finishing records: `perSecond` a second, each a random record of `ids` given a new verdict, its
 * cases, totals, `judged_at` and `updated_at` now, in one statement as the final report writes them.
 */
export function startWriter(sql: SQL, ids: string[], perSecond: number) {
  const verdicts = ["accepted", "accepted", "wrong_answer", "wrong_answer", "time_limit_exceeded", "compile_error"];
  const statement = `with c as (select ${casesSql("$2::text", "$3::int", "$4::int")} as cases)
    update records r set cases = c.cases, state = t.state, score = t.score, time_ms = t.time_ms,
           memory_kb = t.memory_kb, judged_at = now(), updated_at = now()
      from c, lateral (select ${totalsSql("c.cases", "$2::text")}) t where r.id = $1`;
  let running = true;
  let writes = 0;
  const started = performance.now();
  const loop = (async () => {
    const every = 1000 / perSecond;
    for (let next = performance.now(); running; next += every) {
      const verdict = verdicts[Math.floor(Math.random() * verdicts.length)];
      const id = ids[Math.floor(Math.random() * ids.length)];
      await sql.unsafe(statement, [id, verdict, Math.floor(Math.random() * 10), writes]);
      writes++;
      await Bun.sleep(Math.max(0, next + every - performance.now()));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { writes, perSecond: (writes / (performance.now() - started)) * 1000 };
    },
  };
}
