import { readdir, readFile } from "node:fs/promises";
import Redis from "ioredis";
import type { TestApp } from "../../tests/helpers/spawn-app";
import { call } from "./clients";

/**
 * What the deadline costs the shared services (docs/benchmarks.md#capacity): PostgreSQL's transactions,
 * rows and CPU, Redis's commands and CPU, read before and after the submissions, and a package imported
 * through every API at once.
 */
export interface ServiceLoad {
  pgTransactions: number;
  pgRowsRead: number;
  pgRowsWritten: number;
  pgCpuSeconds: number;
  redisCommands: number;
  redisCpuSeconds: number;
  /** The drill database's size at the end (bytes). */
  pgDatabaseBytes: number;
}

type Snapshot = Omit<ServiceLoad, "pgDatabaseBytes">;

/** utime+stime of every live postgres process, plus what the postmaster's ended children used (cutime+cstime). */
async function postgresCpu(): Promise<number> {
  let ticks = 0;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    if (open < 0 || stat.slice(open + 1, close) !== "postgres") continue;
    const fields = stat.slice(close + 2).split(" ");
    // Fields after the name: state is [0], utime [11], stime [12], cutime [13], cstime [14], ppid [1].
    const own = Number(fields[11]) + Number(fields[12]);
    const reaped = fields[1] === "1" || !(await isPostgres(fields[1])) ? Number(fields[13]) + Number(fields[14]) : 0;
    ticks += own + reaped;
  }
  return ticks / 100;
}

async function isPostgres(pid: string): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) === "postgres";
}

function redisField(info: string, name: string): number {
  const line = info.split("\r\n").find((l) => l.startsWith(`${name}:`));
  return line ? Number(line.slice(name.length + 1)) : 0;
}

/** The counters now; PostgreSQL's statistics are flushed by each backend within a second of its work. */
export async function snapshot(t: TestApp): Promise<Snapshot> {
  const [stats] = await t.orm.em.fork().execute<{ xacts: string; read: string; written: string }[]>(
    `select xact_commit + xact_rollback as xacts, tup_returned + tup_fetched as read,
            tup_inserted + tup_updated + tup_deleted as written
       from pg_stat_database where datname = current_database()`,
  );
  const redis = new Redis(t.config.redisUrl, { lazyConnect: true });
  await redis.connect();
  const info = await redis.info();
  redis.disconnect();
  return {
    pgTransactions: Number(stats.xacts),
    pgRowsRead: Number(stats.read),
    pgRowsWritten: Number(stats.written),
    pgCpuSeconds: await postgresCpu(),
    redisCommands: redisField(info, "total_commands_processed"),
    redisCpuSeconds: redisField(info, "used_cpu_user") + redisField(info, "used_cpu_sys"),
  };
}

export async function loadSince(t: TestApp, before: Snapshot): Promise<ServiceLoad> {
  const after = await snapshot(t);
  const [{ bytes }] = await t.orm.em
    .fork()
    .execute<{ bytes: string }[]>("select pg_database_size(current_database()) as bytes");
  const delta = Object.fromEntries(
    Object.entries(after).map(([k, v]) => [k, v - before[k as keyof Snapshot]]),
  ) as Snapshot;
  return { ...delta, pgDatabaseBytes: Number(bytes) };
}

/** An FPS file of one problem, one test, no solution: importing it needs the configs worker, not a judge. */
const FPS = `<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.6"><item>
<title><![CDATA[Deadline import]]></title>
<time_limit unit="s"><![CDATA[1]]></time_limit>
<memory_limit unit="mb"><![CDATA[64]]></memory_limit>
<description><![CDATA[<p>Print the number plus one.</p>]]></description>
<test_input><![CDATA[41
]]></test_input><test_output><![CDATA[42
]]></test_output>
</item></fps>
`;

/**
 * One package imported through every API at once under one url: one problem comes of it, with its config
 * unpacked once; the other answers refuse it without a 5xx. Returns how many problems and config versions.
 */
export async function importOnce(t: TestApp, urls: string[], domain: string, token: string) {
  const url = `drill-import-${Date.now()}`;
  const answers = await Promise.all(
    urls.map((_, i) =>
      call(urls, i, `/domains/${domain}/problem_packages`, {
        token,
        form: () => {
          const form = new FormData();
          form.append("file", new Blob([FPS]), "deadline.xml");
          form.append("url", url);
          return form;
        },
      }),
    ),
  );
  const accepted = answers.filter((a) => a.body?.errorCode === "Success").length;
  const em = () => t.orm.em.fork();
  let problems = 0;
  let versions = 0;
  for (let i = 0; i < 300; i++) {
    const [found] = await em().execute<{ problems: number; versions: number }[]>(
      `select count(distinct p.id)::int as problems, count(c.id)::int as versions
         from problems p left join problem_configs c on c.problem_id = p.id
        where p.domain_id = ? and p.url = ?`,
      [domain, url],
    );
    ({ problems, versions } = found);
    if (versions > 0) break;
    await Bun.sleep(100);
  }
  return { accepted, problems, versions };
}
