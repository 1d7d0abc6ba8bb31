import type { TestApp } from "../../tests/helpers/spawn-app";
import { CONNECTION_PREFIX, type Proc } from "./processes";

/** What the drill (run-drill.ts) does to its processes, and what it watches PostgreSQL for meanwhile. */

/**
 * The chaos: the first judge killed with SIGKILL once it holds a record; then the last API, the one the HTTP
 * judge talks to, restarted once that judge holds records (it must give them back, never fail them). Answers
 * how many records the HTTP judge held when its API went.
 */
export async function disturb(
  t: TestApp,
  judges: Proc[],
  apis: Proc[],
  httpJudger: string | null,
  log: (line: string) => void,
): Promise<number> {
  const held = async (judger: string | null) => {
    const [{ n }] = await t.orm.em.fork().execute<{ n: number }[]>(
      `select count(*)::int as n from records where state in ('fetched','compiling','running','judging')
            and (?::uuid is null or judger_id = ?::uuid)`,
      [judger, judger],
    );
    return n;
  };
  for (let i = 0; i < 600 && (await held(null)) === 0; i++) await Bun.sleep(50);
  await judges[0].stop("SIGKILL");
  log(`${judges[0].name} killed with SIGKILL mid-record`);
  await Bun.sleep(3000);
  let holding = httpJudger ? await held(httpJudger) : 0;
  for (let i = 0; i < 400 && httpJudger && holding === 0; i++) {
    await Bun.sleep(25);
    holding = await held(httpJudger);
  }
  const api = apis[apis.length - 1];
  await api.stop("SIGTERM");
  log(`${api.name} stopped with SIGTERM while the HTTP judge held ${holding} record(s); starting it again`);
  await api.restart();
  log(`${api.name} back`);
  return holding;
}

/**
 * PostgreSQL's connections from the drill's processes (named `drill-…`), sampled every 200 ms until stopped:
 * the peak of their sum, and each process's own peak.
 */
export function sampleConnections(t: TestApp) {
  let peak = 0;
  const each = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await t.orm.em.fork().execute<{ name: string; n: number }[]>(
        `select application_name as name, count(*)::int as n from pg_stat_activity
          where application_name like ? group by application_name`,
        [`${CONNECTION_PREFIX}%`],
      );
      peak = Math.max(
        peak,
        rows.reduce((sum, row) => sum + row.n, 0),
      );
      for (const row of rows) each.set(row.name, Math.max(each.get(row.name) ?? 0, row.n));
      await Bun.sleep(200);
    }
  })();
  return {
    peak: () => peak,
    each: () => [...each].map(([name, n]) => [name.slice(CONNECTION_PREFIX.length), n] as [string, number]).sort(),
    stop: async () => {
      running = false;
      await loop.catch(() => {});
    },
  };
}
