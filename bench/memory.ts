import { benchApp, fmt, report } from "./harness";
import { submission, submit } from "../tests/helpers/records";

/**
 * `bun run bench:memory`: a page of 100 records whose cases hold 64 KiB of output each (a realistic
 * wrong answer, printed in full), read REPEAT times: the memory the API process gains (RSS, and the JS
 * heap after a collection) and the time per page, against the same rows read raw with Bun.sql.
 * Goal (issue 15): under 20 MiB extra, milliseconds per page.
 */
const REPEAT = Number(process.env.REPEAT ?? 50);
const CASES = Number(process.env.CASES ?? 5);

const { t, cast, problem } = await benchApp({ LOG_LEVEL: process.env.LOG_LEVEL ?? "error" });
const domain = cast.domain.id;
const seed = (await submit(t, cast.member.token, `/domains/${domain}/problems/${problem}`, submission("c"))).body.data.id as string;
const output = "expected 42 but the program printed 41\n".repeat(Math.ceil(65_536 / 39)).slice(0, 65_536);
const cases = JSON.stringify(Array.from({ length: CASES }, () => ({
  state: "wrong_answer", score: 0, timeMs: 20, memoryKb: 2048, returnCode: 0, stdout: output, stderr: output,
})));
await t.orm.em.fork().execute(
  `insert into records (id, created_at, updated_at, domain_id, problem_id, committer_id, state, language, cases)
   select gen_random_uuid(), now(), now(), domain_id, problem_id, committer_id, 'rejected', 'c', ?::jsonb
     from records, generate_series(1, 100) where id = ?`,
  [cases, seed],
);
const app = t.app.listen({ hostname: "127.0.0.1", port: 0 });
const url = `http://127.0.0.1:${app.server!.port}/api/v1/domains/${domain}/records?limit=100`;
const headers = { authorization: `Bearer ${cast.admin.token}` };

const settle = () => { Bun.gc(true); return process.memoryUsage(); };
const first = await fetch(url, { headers }).then((r) => r.json() as Promise<{ data?: { results?: unknown[] } }>);
if (first.data?.results?.length !== 100) throw new Error(`expected a full page: ${JSON.stringify(t.logs.filter((l) => l.level === "error")).slice(0, 1500)}`);
// Warm up first (JIT, pools, allocator arenas), so that what is measured is what a page costs.
for (let i = 0; i < 10; i++) await fetch(url, { headers }).then((r) => r.arrayBuffer());
const before = settle();
let peakHeap = before.heapUsed;
const started = performance.now();
let peakRss = before.rss;
for (let i = 0; i < REPEAT; i++) {
  await fetch(url, { headers }).then((r) => r.arrayBuffer());
  const now = process.memoryUsage();
  peakRss = Math.max(peakRss, now.rss);
  peakHeap = Math.max(peakHeap, now.heapUsed);
}
const perPage = (performance.now() - started) / REPEAT;
const after = settle();
const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MiB`;
report(`A page of 100 records with ${CASES} cases of 64 KiB output each (stdout and stderr), ${REPEAT} times`, [
  ["time per page", `${fmt(perPage)} ms`],
  ["RSS gained at peak", mib(peakRss - before.rss)],
  ["JS heap gained at peak (no collection)", mib(peakHeap - before.heapUsed)],
  ["RSS gained after", mib(after.rss - before.rss)],
  ["JS heap gained after a collection", mib(after.heapUsed - before.heapUsed)],
  ["case output in the page's rows", mib(100 * CASES * 2 * 65_536)],
]);
await t.app.stop(true);
await t.close();
