import { SQL } from "bun";
import { benchApp, fmt, report } from "./harness";
import { submission, submit } from "../tests/helpers/records";
import { loadUserAndDomainAccess } from "../src/modules/identity/access";
import { recordPageStatement } from "../src/modules/records/record-list";
import { numbered } from "../src/db/statements";

/**
 * `bun run bench:memory`: a page of 100 records whose cases hold 64 KiB of output each (a realistic
 * wrong answer, printed in full), read over HTTP by an in-process client: the memory the process gains
 * for one page, and at peak over REPEAT pages, with the time per page. The floor is a bare Bun.serve
 * answering the same statement read with Bun.sql, in the same process and run.
 * Goal (issue 15): a page costs under 20 MiB extra, and milliseconds.
 *
 * Over many pages the peak is mostly garbage not yet collected (the collector runs when it sees fit,
 * not after each page), so it moves from run to run for the floor as much as for the app; the memory
 * still held after a collection shows what stays.
 */
const REPEAT = Number(process.env.REPEAT ?? 50);
const CASES = Number(process.env.CASES ?? 5);

const { t, cast, problem } = await benchApp({ LOG_LEVEL: process.env.LOG_LEVEL ?? "error" });
const domain = cast.domain.id;
const seed = (await submit(t, cast.member.token, `/domains/${domain}/problems/${problem}`, submission("c"))).body.data
  .id as string;
const output = "expected 42 but the program printed 41\n".repeat(Math.ceil(65_536 / 39)).slice(0, 65_536);
const cases = JSON.stringify(
  Array.from({ length: CASES }, () => ({
    state: "wrong_answer",
    score: 0,
    timeMs: 20,
    memoryKb: 2048,
    returnCode: 0,
    stdout: output,
    stderr: output,
  })),
);
await t.orm.em.fork().execute(
  `insert into records (id, created_at, updated_at, domain_id, problem_id, committer_id, state, language, cases)
   select gen_random_uuid(), now(), now(), domain_id, problem_id, committer_id, 'rejected', 'c', ?::jsonb
     from records, generate_series(1, 100) where id = ?`,
  [cases, seed],
);
const app = t.app.listen({ hostname: "127.0.0.1", port: 0 });
const appUrl = `http://127.0.0.1:${app.server!.port}/api/v1/domains/${domain}/records?limit=100`;
const headers = { authorization: `Bearer ${cast.admin.token}` };

// The floor: the statement the app runs for this page, read with Bun.sql and written out the same way.
const access = (await loadUserAndDomainAccess(t.orm.em.fork(), cast.admin.user.id, domain))!.access();
const page = recordPageStatement(access, { limit: 100 } as Parameters<typeof recordPageStatement>[1]);
const sql = new SQL(t.config.databaseUrl!, { max: 10 });
const floor = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async () => {
    const found = await sql.unsafe<Record<string, unknown>[]>(numbered(page.sql), page.values);
    // Each row's list fields (the statement's other column is the count).
    const results = found.filter((r) => r.id !== null).map(({ count, ...fields }) => fields);
    return Response.json({ errorCode: "Success", errorMsg: "", data: { count: found[0].count, results } });
  },
});
const floorUrl = `http://127.0.0.1:${floor.port}/`;

const settle = () => {
  Bun.gc(true);
  return process.memoryUsage().rss;
};
const read = (url: string) => fetch(url, { headers }).then((r) => r.arrayBuffer());

async function measure(url: string) {
  const first = JSON.parse(new TextDecoder().decode(await read(url))) as { data?: { results?: unknown[] } };
  if (first.data?.results?.length !== 100) throw new Error(`expected a full page from ${url}`);
  // Warm up first (JIT, pools, allocator arenas), so that what is measured is what a page costs.
  for (let i = 0; i < 10; i++) await read(url);
  const before = settle();
  await read(url);
  const one = process.memoryUsage().rss - before;
  let peak = before + one;
  const started = performance.now();
  for (let i = 1; i < REPEAT; i++) {
    await read(url);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const perPage = (performance.now() - started) / (REPEAT - 1);
  return { one, peak: peak - before, held: settle() - before, perPage };
}

// The order is an environment choice (FLOOR_FIRST=1): the second to run finds the allocator's arenas grown.
const [appResult, floorResult] =
  process.env.FLOOR_FIRST === "1"
    ? await measure(floorUrl).then(async (f) => [await measure(appUrl), f])
    : await measure(appUrl).then(async (a) => [a, await measure(floorUrl)]);
const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MiB`;
const both = (pick: (r: typeof appResult) => number, unit: (n: number) => string) =>
  `app ${unit(pick(appResult))} · floor ${unit(pick(floorResult))}`;
report(`A page of 100 records with ${CASES} cases of 64 KiB output each (stdout and stderr), ${REPEAT} times`, [
  [
    "time per page",
    both(
      (r) => r.perPage,
      (n) => `${fmt(n)} ms`,
    ),
  ],
  ["RSS gained by one page", both((r) => r.one, mib)],
  [`RSS gained at peak over ${REPEAT} pages`, both((r) => r.peak, mib)],
  ["RSS still gained after a collection", both((r) => r.held, mib)],
  ["case output in the page's rows", mib(100 * CASES * 2 * 65_536)],
]);
floor.stop(true);
await sql.close();
await t.app.stop(true);
await t.close();
