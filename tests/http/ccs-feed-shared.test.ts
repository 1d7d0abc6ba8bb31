import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Cast, makeCast } from "../helpers/domain-factories";
import { judgeableProblem, submit } from "../helpers/records";
import { readNdjson } from "../helpers/ndjson-feed";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { feedLinesEncoded } from "../../src/modules/ccs/ccs-feed-lines";

// The Contest API feeds of a contest share their lines (bench:streams, docs/benchmarks.md "bench:streams in
// detail"): a line is encoded once per read for every feed of the same view, not once per feed. Counted, not
// timed: six feeds that each encoded their own lines would count six times what one feed receives.
const FEEDS = 6;
let t: TestApp;
let cast: Cast;
let contest: string;
let submitPath: string;
const HOUR = 3_600_000;

/** A live NDJSON feed read in the background (tests/helpers/ndjson-feed.ts). */
const openFeed = () =>
  readNdjson(t, `/api/ccs/domains/${cast.domain.id}/contests/${contest}/event-feed`, cast.admin.token);

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  const problem = await judgeableProblem(t, cast);
  const now = Date.now();
  const window = { unlockAt: new Date(now - HOUR).toISOString(), dueAt: new Date(now + HOUR).toISOString() };
  contest = (
    await t.api.post(
      `/domains/${cast.domain.id}/problem_sets`,
      { title: "Shared round", scoreboardRule: "icpc", ...window },
      { token: cast.admin.token },
    )
  ).body.data.id;
  await t.api.post(
    `/domains/${cast.domain.id}/problem_sets/${contest}/problems`,
    { problem },
    { token: cast.admin.token },
  );
  submitPath = `/domains/${cast.domain.id}/problem_sets/${contest}/problems/${problem}/submit`;
  for (let i = 0; i < 3; i++) expect((await submit(t, cast.member.token, submitPath)).body.errorCode).toBe("Success");
});
afterAll(() => t?.close());

test("feeds of a contest opened together and hearing a change together encode a line at most twice, not once a feed", async () => {
  // Arrange: the dump one feed gets, alone.
  const alone = await openFeed();
  expect(await alone.until((lines) => lines.some((l) => l.type === "submissions"))).toBe(true);
  await Bun.sleep(300);
  const dumpLines = alone.lines.length;
  alone.close();

  // Act: FEEDS feeds at once, then a new submission all of them hear.
  const before = feedLinesEncoded.count;
  const feeds = await Promise.all(Array.from({ length: FEEDS }, () => openFeed()));
  const dumped = await Promise.all(feeds.map((f) => f.until((lines) => lines.length >= dumpLines)));
  const opening = feedLinesEncoded.count - before;
  const fresh = (await submit(t, cast.member.token, submitPath)).body.data.id as string;
  const heard = await Promise.all(
    feeds.map((f) => f.until((lines) => lines.some((l) => l.type === "submissions" && l.id === fresh))),
  );
  await Bun.sleep(300);
  const burst = feedLinesEncoded.count - before - opening;
  const newLines = Math.max(...feeds.map((f) => f.lines.length)) - dumpLines;
  for (const feed of feeds) feed.close();

  // Assert: every feed got everything, and the lines were encoded at most twice (a feed that opened after the
  // others' read began reads again), where feeds of their own would have encoded them FEEDS times.
  expect(feeds.map((f) => f.status)).toEqual(Array(FEEDS).fill(200));
  expect(dumped).toEqual(Array(FEEDS).fill(true));
  expect(heard).toEqual(Array(FEEDS).fill(true));
  expect(newLines).toBeGreaterThan(0);
  // Said whole when it fails: how many lines each phase encoded against what one feed received.
  const encoded = { opening, burst };
  const atMostTwice = { opening: Math.min(opening, 2 * dumpLines), burst: Math.min(burst, 2 * newLines) };
  expect(encoded).toEqual(atMostTwice);
  expect(opening).toBeGreaterThanOrEqual(dumpLines);
});
