import { SQL } from "bun";
import { benchApp, fmt, postgresCpu, report } from "./harness";
import { createUser } from "../tests/helpers/factories";
import { submission, submit } from "../tests/helpers/records";
import { fillRecords } from "../tests/helpers/fill-records";
import { floors } from "./reads-floors";
import { SESSION_SETTINGS } from "../src/db/statements";

/**
 * `bun run bench:reads`: the hot reads the hour before a deadline, against two floors measured in the same
 * run (reads-floors.ts): bare Bun.serve + Bun.sql servers answering the same requests with the same JSON,
 * the tight one reading the caller, their standing and the resource in one statement and applying the
 * same permission rules (the main ratio), the framework one reading the caller and then the resource. Load: an in-process client, CONCURRENCY
 * requests in flight over real HTTP, for SECONDS per route after WARMUP unmeasured seconds, or with
 * LOAD=wrk the same from outside this process (wrk, 64 connections). Records
 * are made by SQL (generate_series, realistic case outputs), first SMALL (10k) and then LARGE (1M).
 */
const SMALL = Number(process.env.SMALL ?? 10_000);
const LARGE = Number(process.env.LARGE ?? 1_000_000);
const SECONDS = Number(process.env.SECONDS ?? 3);
// LOAD=wrk: the load from outside this process (Debian's wrk, 2 threads), 64 connections by default.
const WRK = process.env.LOAD === "wrk";
const CONCURRENCY = Number(process.env.CONCURRENCY ?? (WRK ? 64 : 16));
// Each side answers this long first, unmeasured: the first requests of a route compile its code.
const WARMUP = Number(process.env.WARMUP ?? 1);
// For a CPU profile of the app alone (`bun --cpu-prof-md bench/reads.ts`): ROUTE=<part of a name>, APP_ONLY=1.
const ROUTE = process.env.ROUTE ?? "";
const APP_ONLY = Boolean(process.env.APP_ONLY);
// Pairs of tight floor and app per route, taken in turns (see the loop below).
const ROUNDS = Number(process.env.ROUNDS ?? 3);

type Measured = { rps: number; p50: number; p99: number; cpu: number; pg: number };
const median = (sorted: number[]) =>
  sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;

// APP_LOG_LEVEL=info: the access log of every request, as production logs by default (formatted, then dropped).
const { t, cast, problem } = await benchApp({
  LOG_LEVEL: process.env.APP_LOG_LEVEL ?? "error",
  RATE_SUBMISSIONS_PER_USER: "0",
});
// The floors' connections run with the app's session settings (no JIT, generic plans: db/statements.ts).
const sql = new SQL(t.config.databaseUrl!, { max: 10, connection: { ...SESSION_SETTINGS } });
const domain = cast.domain.id;
const member = cast.member;
const seed = (await submit(t, member.token, `/domains/${domain}/problems/${problem}`, submission("c"))).body.data
  .id as string;
const set = (await t.api.post(`/domains/${domain}/problem_sets`, { title: "Week 1" }, { token: cast.admin.token })).body
  .data.id as string;
const students = await Promise.all(Array.from({ length: 20 }, () => createUser(t)));
const population = { domain, set, problem, students: students.map((s) => s.user.id) };

// The domain admin's token, and a student's for their own records (no record.view: the list is their own).
const admin = cast.admin.token;
const student = students[3];
await sql`insert into domain_users (id, created_at, updated_at, domain_id, user_id, role)
  values (gen_random_uuid(), now(), now(), ${domain}, ${student.user.id}, 'user')`;
const routes: [name: string, path: string, token: string][] = [
  ["GET /users/me", "/api/v1/users/me", admin],
  ["GET /domains/{d}/problems/{p}", `/api/v1/domains/${domain}/problems/${problem}`, admin],
  ["GET /domains/{d}/records/{id}", `/api/v1/domains/${domain}/records/${seed}`, admin],
  ["records?limit=100", `/api/v1/domains/${domain}/records?limit=100`, admin],
  ["records?problem=…", `/api/v1/domains/${domain}/records?limit=100&problem=${problem}`, admin],
  ["records?submitterId=…", `/api/v1/domains/${domain}/records?limit=100&submitterId=${student.user.id}`, admin],
  ["records?problemSet=…", `/api/v1/domains/${domain}/records?limit=100&problemSet=${set}`, admin],
  ["records (a student's own)", `/api/v1/domains/${domain}/records?limit=100`, student.token],
  ["records?offset=5000", `/api/v1/domains/${domain}/records?limit=100&offset=5000`, admin],
];

/**
 * Requests for SECONDS with CONCURRENCY in flight: req/s, p50, p99 (ms), and this process's CPU per request
 * (client and server together, the same client for both) and PostgreSQL's CPU per request (its
 * server processes, from /proc). CPU time is the steadier figure on a shared machine, where wall time
 * follows the neighbours' load.
 */
async function load(base: string, path: string, token: string, measured = true, warm = true): Promise<Measured> {
  if (measured && warm && WARMUP > 0) await load(base, path, token, false);
  const seconds = measured ? SECONDS : WARMUP;
  if (WRK) return wrkLoad(base + path, token, seconds);
  const latencies: number[] = [];
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const pgBefore = await postgresCpu();
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const response = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
        await response?.arrayBuffer();
        if (response?.status !== 200) failures++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  if (failures > 0 && measured) console.log(`  (${failures} of ${latencies.length} requests to ${base}${path} failed)`);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuPerRequest = (cpu.user + cpu.system) / latencies.length;
  const pg = ((await postgresCpu()) - pgBefore) / latencies.length;
  return { rps: (latencies.length - failures) / seconds, p50: at(0.5), p99: at(0.99), cpu: cpuPerRequest, pg };
}

/**
 * The same figures with the load from outside: wrk holds CONCURRENCY connections for `seconds`; this
 * process's CPU is then the server's alone. wrk's latency percentiles are read from its --latency table.
 */
async function wrkLoad(url: string, token: string, seconds: number) {
  const cpuBefore = process.cpuUsage();
  const pgBefore = await postgresCpu();
  const wrk = Bun.spawn(
    ["wrk", "-t2", `-c${CONCURRENCY}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${token}`, url],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [text, code] = await Promise.all([new Response(wrk.stdout).text(), wrk.exited]);
  if (code !== 0)
    throw new Error(`wrk failed (install it: apt-get install wrk): ${await new Response(wrk.stderr).text()}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  const failures = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  if (failures > 0) console.log(`  (${failures} of ${requests} requests to ${url} failed)`);
  const ms = (q: string) => {
    const [, value, unit] = new RegExp(`^\\s+${q}%\\s+([\\d.]+)(us|ms|s)$`, "m").exec(text) ?? ["", "0", "ms"];
    return Number(value) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : 1);
  };
  const cpu = process.cpuUsage(cpuBefore);
  const pg = ((await postgresCpu()) - pgBefore) / Math.max(1, requests);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0),
    p50: ms("50"),
    p99: ms("99"),
    cpu: (cpu.user + cpu.system) / Math.max(1, requests),
    pg,
  };
}

const app = t.app.listen({ hostname: "127.0.0.1", port: 0, idleTimeout: 60 });
const appBase = `http://127.0.0.1:${app.server!.port}`;
const floorHandlers = floors(sql, t.config.jwtSecret, t.config.publicUrl);
const serve = (fetch: (request: Request) => Promise<Response>) =>
  Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch });
const tight = serve(floorHandlers.tight);
const framework = serve(floorHandlers.framework);
const tightBase = `http://127.0.0.1:${tight.port}`;
const frameworkBase = `http://127.0.0.1:${framework.port}`;

/** The tight floor must answer what the app answers: a route whose JSON differs is named. */
async function sameAnswers(): Promise<void> {
  for (const [name, path, token] of routes) {
    const read = (base: string) =>
      fetch(base + path, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
    const [app, floor] = await Promise.all([read(appBase), read(tightBase)]);
    if (app !== floor) console.log(`  (${name}: the tight floor's JSON differs from the app's)`);
    if (app !== floor && process.env.SHOW_DIFF) console.log(app.slice(0, 600), "\n", floor.slice(0, 600));
  }
}

if (process.env.FILL_ONLY) {
  // For EXPLAIN by hand: fill, print the database URL, and keep it (no clean-up).
  await fillRecords(sql, population, LARGE);
  console.log(`filled: ${t.config.databaseUrl}`);
  process.exit(0);
}

for (const total of [SMALL, LARGE].filter((n) => n > 0)) {
  await fillRecords(sql, population, total);
  const rows: [string, string][] = [];
  await sameAnswers();
  for (const [name, path, token] of routes.filter(([name]) => name.includes(ROUTE))) {
    if (APP_ONLY) {
      const appResult = await load(appBase, path, token);
      rows.push([
        name,
        `app ${fmt(appResult.rps)} req/s (p50 ${fmt(appResult.p50)}, p99 ${fmt(appResult.p99)} ms,` +
          ` ${fmt(appResult.cpu)} µs CPU, PostgreSQL ${fmt(appResult.pg)} µs)`,
      ]);
      continue;
    }
    // The tight floor and the app in turns, ROUNDS times, the order swapped each round: a neighbour's
    // burst then slows both sides of some pairs instead of one side of the only pair. The ratio printed
    // is the median of the rounds' ratios, with their range.
    const pairs: { floor: Measured; app: Measured }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const warm = round === 0;
      if (round % 2 === 0) {
        const floor = await load(tightBase, path, token, true, warm);
        pairs.push({ floor, app: await load(appBase, path, token, true, warm) });
      } else {
        const app = await load(appBase, path, token, true, warm);
        pairs.push({ app, floor: await load(tightBase, path, token, true, warm) });
      }
    }
    const frameworkResult = await load(frameworkBase, path, token);
    const ratios = pairs.map((p) => p.floor.rps / p.app.rps).sort((a, b) => a - b);
    const middle = pairs.slice().sort((a, b) => a.floor.rps / a.app.rps - b.floor.rps / b.app.rps)[
      Math.floor(pairs.length / 2)
    ];
    const [appResult, floorResult] = [middle.app, middle.floor];
    rows.push([
      name,
      `app ${fmt(appResult.rps)} req/s (p50 ${fmt(appResult.p50)}, p99 ${fmt(appResult.p99)} ms)` +
        ` · tight floor ${fmt(floorResult.rps)} req/s (p99 ${fmt(floorResult.p99)} ms)` +
        ` · tight ÷ app ${fmt(median(ratios))} (${ratios.map(fmt).join(", ")})` +
        ` · CPU/req app ${fmt(appResult.cpu)} µs, floor ${fmt(floorResult.cpu)} µs` +
        ` · PostgreSQL CPU/req app ${fmt(appResult.pg)} µs, floor ${fmt(floorResult.pg)} µs`,
    ]);
    rows.push([
      "",
      `  framework floor (caller, then resource; nothing checked) ${fmt(frameworkResult.rps)} req/s` +
        ` (p99 ${fmt(frameworkResult.p99)} ms) · framework ÷ app ${fmt(frameworkResult.rps / appResult.rps)}` +
        ` · CPU/req ${fmt(frameworkResult.cpu)} µs, PostgreSQL ${fmt(frameworkResult.pg)} µs`,
    ]);
  }
  report(
    `Hot reads at ${total.toLocaleString("en")} records (${CONCURRENCY} in flight, ${SECONDS} s each, ` +
      `${WRK ? "wrk from outside this process" : "in-process client over HTTP"})`,
    rows,
  );
}
tight.stop(true);
framework.stop(true);
await t.app.stop(true);
await sql.close();
await t.close();
