import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../tests/helpers/spawn-app";
import { addMembership } from "../tests/helpers/domain-factories";
import { createUser } from "../tests/helpers/factories";
import { submit } from "../tests/helpers/records";
import { benchApp, fmt, report } from "./harness";
import { spawnServer, stopServers } from "./scoreboard-load";
import { heapOf, judgeAll, readingFeed, rssOf, sampleRss, stalledFeed, timedGets } from "./streams-clients";

/**
 * `bun run bench:streams`: FEEDS Contest API event feeds (NDJSON) from ACCOUNTS accounts on an ICPC contest of
 * RECORDS records × CASES cases, with the API as a process of its own (`bun src/main.ts`, production settings)
 * and every client in this process: a share STALLED of the feeds never read (a raw socket, paused), the rest
 * read everything. A judger over HTTP (next_task, claim, case reports, final) judges the records once; then
 * the problem is rejudged and judged again, without feeds and then with them. Measured: the API process's RSS
 * (idle: started, warmed, no feed; its peak while the feeds watch the rejudge, over idle; target under
 * 150 MiB), and a GET beside them (an admin's page of the set's records, one at a time) during the rejudge
 * with the feeds, vs the same GET quiet (no feed, no judging) and during the rejudge without feeds. HEAP=1 prints
 * the API's memory after each phase, garbage and live heap apart (bench/streams-heap.ts; HEAP_SNAPSHOT=1 also
 * writes the heap whole); its full collections lower the peaks that follow, so its figures are not the table's.
 */
const FEEDS = Number(process.env.FEEDS ?? 200);
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 25);
const RECORDS = Number(process.env.RECORDS ?? 150);
const CASES = Number(process.env.CASES ?? 3);
const STALLED = Number(process.env.STALLED ?? 0.5);
const JUDGES = Number(process.env.JUDGES ?? 4);
const GETS = Number(process.env.GETS ?? 40);
const TARGET_MIB = 150;

process.env.CASES = String(CASES);
const { t, cast, problem } = await benchApp({ LOG_LEVEL: "error" });
const domain = cast.domain.id;
const now = Date.now();
const contest = (
  await t.api.post(
    `/domains/${domain}/problem_sets`,
    {
      title: "Streams round",
      scoreboardRule: "icpc",
      unlockAt: new Date(now - 3_600_000).toISOString(),
      dueAt: new Date(now + 3_600_000).toISOString(),
    },
    { token: cast.admin.token },
  )
).body.data.id as string;
await t.api.post(`/domains/${domain}/problem_sets/${contest}/problems`, { problem }, { token: cast.admin.token });
const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => createUser(t)));
// Tools that read a contest whole (a CDS, a resolver) read it as staff: every team's submissions and judgements.
for (const account of accounts) await addMembership(t, cast.domain, account, "admin");
const submitPath = `/domains/${domain}/problem_sets/${contest}/problems/${problem}/submit`;
for (let i = 0; i < RECORDS; i += 25)
  await Promise.all(
    Array.from({ length: Math.min(25, RECORDS - i) }, (_, j) =>
      submit(t, accounts[(i + j) % ACCOUNTS].token, submitPath),
    ),
  );
const judger = (
  await t.api.post(
    "/admin/judgers",
    { username: "judge-streams", password: "pw", email: "judge-streams@example.edu" },
    { token: cast.siteRoot.token },
  )
).body.data;
const judgerAuth = `Basic ${Buffer.from(`${judger.accessKeyId}:${judger.secretAccessKey}`).toString("base64")}`;

const server = await spawnServer(
  "../src/main.ts",
  {
    MODE: "production",
    HOST: "127.0.0.1",
    DATABASE_URL: t.config.databaseUrl!,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `bench-streams-${process.pid}`,
    DATA_DIR: "/tmp/joj-bench-streams",
    STORAGE_DIR: t.config.storage.dir,
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: "warn",
    LIVE_STREAMS_PER_USER: String(Math.ceil(FEEDS / ACCOUNTS)),
    LIVE_STREAMS_PER_PROCESS: String(FEEDS * 2),
    LIVE_STREAMS_PER_SITE: String(FEEDS * 2),
    // The allocator's own settings, to try (MIMALLOC_PURGE_DELAY=0 gives freed pages back at once), and
    // HEAP_SNAPSHOT=1 for bench/streams-heap.ts.
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => /^(MIMALLOC_|HEAP_SNAPSHOT$)/.test(name))),
  },
  "/api/v1/version",
  // API_FLAGS="--smol": the API with Bun's smaller heap.
  [
    ...(process.env.API_FLAGS ?? "").split(" ").filter(Boolean),
    ...(process.env.HEAP === "1" ? ["--preload", `${import.meta.dir}/streams-heap.ts`] : []),
  ],
);
const bearer = (token: string) => `Bearer ${token}`;
const adminAuth = bearer(cast.admin.token);
const getUrl = `${server.base}/api/v1/domains/${domain}/records?problemSet=${contest}&limit=50`;
const feedUrl = `${server.base}/api/ccs/domains/${domain}/contests/${contest}/event-feed`;
// Each pass flips every record's verdict, so a rejudge changes every judgement the feeds show.
const verdicts = new Map<string, number>();
const verdict = (id: string) => {
  const seen = (verdicts.get(id) ?? 0) + 1;
  verdicts.set(id, seen);
  return (seen + id.charCodeAt(0)) % 2 ? "accepted" : "wrong_answer";
};
const judgePass = () => judgeAll(server.base, judgerAuth, RECORDS, CASES, JUDGES, verdict);
const rejudge = async () => {
  const answer = await fetch(`${server.base}/api/v1/domains/${domain}/problems/${problem}/rejudge`, {
    method: "POST",
    headers: { authorization: adminAuth, "content-type": "application/json" },
    body: "{}",
  }).then((r) => r.json() as Promise<{ errorCode: string }>);
  if (answer.errorCode !== "Success") throw new Error(`rejudge refused: ${JSON.stringify(answer)}`);
};
/** A rejudge judged to the end with GETs timed beside it, and the API's peak RSS meanwhile. */
const rejudgedWithGets = async () => {
  await rejudge();
  const sampler = sampleRss(server.pid);
  let judging = true;
  const gets = timedGets(getUrl, adminAuth, () => judging, 10);
  const pass = judgePass();
  // HEAP=1: the API's memory in the middle of the rejudge too (its full collection lowers the peak after it).
  if (process.env.HEAP === "1")
    void Bun.sleep(3000).then(async () => {
      if (judging) await heapOf(server.pid, "mid-rejudge");
    });
  const judged = await pass;
  judging = false;
  return { gets: await gets, peak: await sampler.stop(), refused: judged.refused };
};

try {
  await judgePass();
  // Warm: the routes compiled, the pools filled.
  await timedGets(getUrl, adminAuth, () => false, 20);
  await timedGets(`${feedUrl}?stream=false`, adminAuth, () => false, 5);
  const quiet = await timedGets(getUrl, adminAuth, () => false, GETS);
  await Bun.sleep(1000);
  const idle = await rssOf(server.pid);
  await heapOf(server.pid, "idle");
  const alone = await rejudgedWithGets();

  const stalledCount = Math.round(FEEDS * STALLED);
  const feeds: Awaited<ReturnType<typeof readingFeed>>[] = [];
  const stalled: Awaited<ReturnType<typeof stalledFeed>>[] = [];
  for (let i = 0; i < FEEDS; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, FEEDS - i) }, async (_, j) => {
        const auth = bearer(accounts[(i + j) % ACCOUNTS].token);
        if (i + j < stalledCount) stalled.push(await stalledFeed(feedUrl, auth));
        else feeds.push(await readingFeed(feedUrl, auth));
      }),
    );
  const opened = [...feeds, ...stalled].filter((f) => f.status === 200).length;
  await Bun.sleep(2000);
  const open = await rssOf(server.pid);
  await heapOf(server.pid, "feeds open");
  for (const feed of feeds) feed.mark();
  const watched = await rejudgedWithGets();
  // Every reading feed should see each record's new judgement end: waited for, bounded.
  const deadline = Date.now() + 30_000;
  const reading = feeds.filter((f) => f.status === 200);
  while (reading.some((f) => f.judged.size < RECORDS) && Date.now() < deadline) await Bun.sleep(200);
  const delivered = reading.filter((f) => f.judged.size >= RECORDS).length;
  const metrics = await fetch(`${server.base}/metrics`).then((r) => r.text());
  const dropped = /^joj_live_streams_dropped_total\{reason="slow_reader"\} (\d+)/m.exec(metrics)?.[1] ?? "0";
  const after = await rssOf(server.pid);
  await heapOf(server.pid, "after the rejudge");

  const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MiB`;
  const get = (g: typeof quiet) =>
    `p50 ${fmt(g.p50)} ms, p95 ${fmt(g.p95)} ms (${g.n} GETs${g.failures ? `, ${g.failures} failed` : ""})`;
  const over = watched.peak - idle;
  const holds = over < TARGET_MIB * 1048576 ? "holds" : "DOES NOT HOLD";
  const ratios = (g: typeof quiet) => `÷ quiet: p50 ${fmt(g.p50 / quiet.p50)}, p95 ${fmt(g.p95 / quiet.p95)}`;
  report(
    `Streams: ${FEEDS} Contest API feeds (${stalledCount} never read) from ${ACCOUNTS} accounts, ` +
      `a rejudge of ${RECORDS} records × ${CASES} cases`,
    [
      ["feeds opened / refused", `${opened} / ${FEEDS - opened}`],
      ["API RSS idle (started, warmed, no feed)", mib(idle)],
      ["API RSS, feeds open, before the rejudge", `${mib(open)} (+${mib(open - idle)})`],
      ["API RSS peak, rejudge without feeds", `${mib(alone.peak)} (+${mib(alone.peak - idle)})`],
      [
        "API RSS peak, rejudge with the feeds",
        `${mib(watched.peak)} (+${mib(over)} over idle: target under ${TARGET_MIB} MiB ${holds})`,
      ],
      ["API RSS after, feeds still open", mib(after)],
      ["GET quiet (the floor)", get(quiet)],
      ["GET during the rejudge, no feeds", `${get(alone.gets)} · ${ratios(alone.gets)}`],
      ["GET during the rejudge, with the feeds", `${get(watched.gets)} · ${ratios(watched.gets)}`],
      ["reading feeds that got every new judgement", `${delivered} / ${reading.length}`],
      ["feeds dropped by the server (slow readers)", dropped],
      ["judge calls refused", `${alone.refused + watched.refused}`],
    ],
  );
  for (const feed of [...feeds, ...stalled]) feed.close();
} finally {
  await stopServers();
  await t.close();
}
