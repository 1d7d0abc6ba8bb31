import { SQL } from "bun";
import { jwt } from "@elysiajs/jwt";
import { benchApp, fmt, postgresCpu, report } from "./harness";
import { createUser } from "../tests/helpers/factories";
import { submission, submit } from "../tests/helpers/records";
import { fillRecords } from "../tests/helpers/fill-records";

/**
 * `bun run bench:reads`: the hot reads the hour before a deadline, against a floor measured in the same
 * run — a bare Bun.serve + Bun.sql server on the same port number's neighbour doing the same queries
 * for the same JSON (JWT checked, the same rows read). Load: an in-process client, CONCURRENCY
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

const { t, cast, problem } = await benchApp({ LOG_LEVEL: "error", RATE_SUBMISSIONS_PER_USER: "0" });
const sql = new SQL(t.config.databaseUrl!, { max: 10 });
const domain = cast.domain.id;
const member = cast.member;
const seed = (await submit(t, member.token, `/domains/${domain}/problems/${problem}`, submission("c"))).body.data
  .id as string;
const set = (await t.api.post(`/domains/${domain}/problem_sets`, { title: "Week 1" }, { token: cast.admin.token })).body
  .data.id as string;
const students = await Promise.all(Array.from({ length: 20 }, () => createUser(t)));
const population = { domain, set, problem, students: students.map((s) => s.user.id) };

const token = cast.admin.token;
const routes: [string, string][] = [
  ["GET /users/me", "/api/v1/users/me"],
  ["GET /domains/{d}/problems/{p}", `/api/v1/domains/${domain}/problems/${problem}`],
  ["GET /domains/{d}/records/{id}", `/api/v1/domains/${domain}/records/${seed}`],
  ["records?limit=100", `/api/v1/domains/${domain}/records?limit=100`],
  ["records?problem=…", `/api/v1/domains/${domain}/records?limit=100&problem=${problem}`],
  ["records?submitterId=…", `/api/v1/domains/${domain}/records?limit=100&submitterId=${students[3].user.id}`],
  ["records?problemSet=…", `/api/v1/domains/${domain}/records?limit=100&problemSet=${set}`],
  ["records?offset=5000", `/api/v1/domains/${domain}/records?limit=100&offset=5000`],
];

/**
 * Requests for SECONDS with CONCURRENCY in flight: req/s, p50, p99 (ms), and this process's CPU per request
 * (client and server together, the same client for both) and PostgreSQL's CPU per request (its
 * server processes, from /proc). CPU time is the steadier figure on a shared machine, where wall time
 * follows the neighbours' load.
 */
async function load(
  base: string,
  path: string,
  measured = true,
): Promise<{ rps: number; p50: number; p99: number; cpu: number; pg: number }> {
  if (measured && WARMUP > 0) await load(base, path, false);
  const seconds = measured ? SECONDS : WARMUP;
  if (WRK) return wrkLoad(base + path, seconds);
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
async function wrkLoad(url: string, seconds: number) {
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
const floor = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 60, fetch: (request) => floorAnswer(request) });
const floorBase = `http://127.0.0.1:${floor.port}`;

const floorJwt = jwt({ name: "jwt", secret: t.config.jwtSecret, alg: "HS256" }).decorator.jwt;

/** The floor: the JWT checked, then the same rows read with Bun.sql and returned as JSON. */
async function floorAnswer(request: Request): Promise<Response> {
  // A minimal server verifies the JWT on every request; the app remembers verified tokens (auth.plugin.ts).
  const claims = await floorJwt.verify(request.headers.get("authorization")!.slice(7), { algorithms: ["HS256"] });
  if (!claims) return new Response("no", { status: 401 });
  const url = new URL(request.url);
  const [user] = await sql`select id, username, role, is_active from users where id = ${claims.sub as string}`;
  const parts = url.pathname.split("/");
  let data: unknown = user;
  if (url.pathname.endsWith("/users/me")) data = user;
  else if (parts[5] === "problems") {
    // The page holds the caller's newest record for the problem (Horse's latestRecord), so the floor reads it too.
    data = (
      await sql`select p.*, (select json_build_object('id', r.id, 'state', r.state, 'createdAt', r.created_at) from records r
        where r.committer_id = ${user.id} and r.problem_id = p.id and r.problem_set_id is null
        order by r.created_at desc, r.id desc limit 1) as latest_record
      from problems p where p.id = ${parts[6]} and p.domain_id = ${domain}`
    )[0];
  } else if (parts[6]) data = (await sql`select * from records where id = ${parts[6]} and domain_id = ${domain}`)[0];
  else {
    // The same questions, by hand: only the filters given, the page's ids found on the index first,
    // and the count from the same maintained counts, so that the ratio measures the framework.
    const q = url.searchParams;
    const where = ["domain_id = $1"];
    const values: unknown[] = [domain];
    for (const [param, column] of [
      ["problem", "problem_id"],
      ["submitterId", "committer_id"],
      ["problemSet", "problem_set_id"],
    ]) {
      if (q.get(param)) where.push(`${column} = $${values.push(q.get(param))}`);
    }
    const condition = where.join(" and ");
    const [rows, [{ n }]] = await Promise.all([
      sql.unsafe(
        `with page as (select id from records where ${condition} order by created_at desc, id limit 100 offset ${Number(q.get("offset") ?? 0)})
          select r.id, r.created_at, r.updated_at, r.domain_id, r.state, r.language, r.score, r.time_ms, r.memory_kb, r.judged_at,
                 r.late, r.problem_set_id, ps.title as problem_set_title, r.problem_id, p.title as problem_title, r.committer_id, u.username
            from page join records r on r.id = page.id left join problem_sets ps on ps.id = r.problem_set_id
            left join problems p on p.id = r.problem_id left join users u on u.id = r.committer_id
           order by r.created_at desc, r.id`,
        values,
      ),
      sql.unsafe(`select coalesce(sum(records), 0)::int as n from record_counts where ${condition}`, values),
    ]);
    data = { count: n, results: rows };
  }
  return Response.json({ errorCode: "Success", errorMsg: null, data });
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
  for (const [name, path] of routes.filter(([name]) => name.includes(ROUTE))) {
    if (APP_ONLY) {
      const appResult = await load(appBase, path);
      rows.push([
        name,
        `app ${fmt(appResult.rps)} req/s (p50 ${fmt(appResult.p50)}, p99 ${fmt(appResult.p99)} ms,` +
          ` ${fmt(appResult.cpu)} µs CPU, PostgreSQL ${fmt(appResult.pg)} µs)`,
      ]);
      continue;
    }
    const floorResult = await load(floorBase, path);
    const appResult = await load(appBase, path);
    rows.push([
      name,
      `app ${fmt(appResult.rps)} req/s (p50 ${fmt(appResult.p50)}, p99 ${fmt(appResult.p99)} ms)` +
        ` · floor ${fmt(floorResult.rps)} req/s (p99 ${fmt(floorResult.p99)} ms) · floor ÷ app ${fmt(floorResult.rps / appResult.rps)}` +
        ` · CPU/req app ${fmt(appResult.cpu)} µs, floor ${fmt(floorResult.cpu)} µs` +
        ` · PostgreSQL CPU/req app ${fmt(appResult.pg)} µs, floor ${fmt(floorResult.pg)} µs`,
    ]);
  }
  report(
    `Hot reads at ${total.toLocaleString("en")} records (${CONCURRENCY} in flight, ${SECONDS} s each, ` +
      `${WRK ? "wrk from outside this process" : "in-process client over HTTP"})`,
    rows,
  );
}
floor.stop(true);
await t.app.stop(true);
await sql.close();
await t.close();
