import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { spawnApp, TEST_REDIS_URL, type TestApp } from "../helpers/spawn-app";
import { spawnTwin } from "../helpers/twin-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { eventually } from "../helpers/factories";
import { judgeableProblem, submit } from "../helpers/records";
import { readStream } from "../helpers/sse";
import { liveStreamsDropped } from "../../src/runtime/metrics";

/** docs/operations.md "Live streams": the caps per process and per site, and a client that does not read. */

const redis = new Redis(TEST_REDIS_URL);
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  redis.disconnect();
});

/** A list stream as a browser opens it; its body is read only when `read` says so. */
async function listStream(t: TestApp, cast: Cast, token: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1/domains/${cast.domain.id}/records/events`, {
      signal: abort.signal,
      headers: { authorization: `Bearer ${token}`, ...headers },
    }),
  );
  const close = async () => {
    abort.abort();
    await response.body?.cancel().catch(() => {});
  };
  open.push({ close });
  return { response, abort, close };
}

const siteKey = (t: TestApp) => `${t.config.queuePrefix}:records:site-streams`;

/** Waits (bounded) until the site's slots number `count`: a closed stream frees its slots without waiting. */
async function siteSlots(t: TestApp, count: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const held = await redis.zcard(siteKey(t));
    if (held === count || Date.now() > deadline) return held;
    await Bun.sleep(20);
  }
}

describe("LIVE_STREAMS_PER_PROCESS", () => {
  let t: TestApp;
  let cast: Cast;
  beforeAll(async () => {
    t = await spawnApp({ LIVE_STREAMS_PER_PROCESS: "3", LIVE_STREAMS_PER_USER: "100", LIVE_STREAMS_PER_SITE: "100" });
    cast = await makeCast(t);
  });
  afterAll(() => t.close());

  test("eight streams opened at once where a process holds three: three open, five get 429 and Retry-After", async () => {
    const opened = await Promise.all(Array.from({ length: 8 }, () => listStream(t, cast, cast.admin.token)));
    const statuses = opened.map((s) => s.response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    const refused = opened.find((s) => s.response.status === 429)!.response;
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(((await refused.json()) as { errorMsg: string }).errorMsg).toContain(
      "at most 3 live streams per API process",
    );
    // A stream that ends gives its place back.
    await opened.find((s) => s.response.status === 200)!.close();
    expect((await listStream(t, cast, cast.admin.token)).response.status).toBe(200);
  });
});

describe("LIVE_STREAMS_PER_SITE", () => {
  let t: TestApp;
  let twin: TestApp;
  let cast: Cast;
  beforeAll(async () => {
    t = await spawnApp({ LIVE_STREAMS_PER_SITE: "4", LIVE_STREAMS_PER_USER: "100", LIVE_HEARTBEAT_SECONDS: "1" });
    twin = await spawnTwin(t);
    cast = await makeCast(t);
  });
  afterAll(async () => {
    await twin.close();
    await t.close();
  });

  test("ten streams opened at once over two processes of a site that holds four: four open, across both", async () => {
    const apps = Array.from({ length: 10 }, (_, i) => (i % 2 ? twin : t));
    const opened = await Promise.all(apps.map((app) => listStream(app, cast, cast.admin.token)));
    expect(opened.filter((s) => s.response.status === 200).length).toBe(4);
    const refused = opened.filter((s) => s.response.status === 429);
    expect(refused.length).toBe(6);
    expect(((await refused[0].response.json()) as { errorMsg: string }).errorMsg).toContain(
      "at most 4 live streams on this site",
    );
    expect(await redis.zcard(siteKey(t))).toBe(4);
    for (const s of opened) await s.close();
    expect(await siteSlots(t, 0)).toBe(0);
  });

  test("a killed process's slots expire: a slot not renewed for three heartbeats no longer counts", async () => {
    // Four slots of a process that died a minute ago (LIVE_HEARTBEAT_SECONDS is 1: stale after 3 s).
    const then = Number((await redis.time())[0]) * 1000 - 60_000;
    await redis.zadd(siteKey(t), then, "dead-1", then, "dead-2", then, "dead-3", then, "dead-4");
    const opened = await Promise.all(Array.from({ length: 4 }, () => listStream(t, cast, cast.admin.token)));
    expect(opened.map((s) => s.response.status)).toEqual([200, 200, 200, 200]);
    expect(await redis.zscore(siteKey(t), "dead-1")).toBeNull();
    for (const s of opened) await s.close();
  });
});

describe("a client that does not read", () => {
  let t: TestApp;
  let cast: Cast;
  let problem: string;
  beforeAll(async () => {
    t = await spawnApp({ LIVE_STREAM_QUEUE_KB: "2", LIVE_HEARTBEAT_SECONDS: "1" });
    cast = await makeCast(t);
    problem = await judgeableProblem(t, cast);
  });
  afterAll(() => t.close());

  test("is dropped (its slots freed, counted, logged) while one that reads keeps getting every event", async () => {
    const path = `/domains/${cast.domain.id}/problems/${problem}`;
    const earlier: string[] = [];
    for (let i = 0; i < 8; i++) earlier.push((await submit(t, cast.member.token, path)).body.data.id);
    // A number, copied at once: prom-client hands out its own value objects, which count on.
    const dropped = async () =>
      (await liveStreamsDropped.get()).values.find((v) => v.labels.reason === "slow_reader")?.value ?? 0;
    const droppedBefore = await dropped();
    // Both replay the eight records' rows (~4 KiB): more than the stalled client may leave unread.
    const stalled = await listStream(t, cast, cast.admin.token, { "last-event-id": "0-0" });
    const reading = await listStream(t, cast, cast.admin.token, { "last-event-id": "0-0" });
    const reader = readStream(reading.response, reading.abort);
    open.push(reader);
    expect([stalled.response.status, reading.response.status]).toEqual([200, 200]);

    await eventually(() => t.logs.some((l) => l.msg === "live stream dropped: its client does not read"), 15_000);
    expect((await dropped()) - droppedBefore).toBe(1);
    // Its slots are free: only the reading stream holds one.
    expect(await siteSlots(t, 1)).toBe(1);
    // What it had queued is gone: its body ends in an error, not with the rest of the events.
    const body = stalled.response.body!.getReader();
    let failed = false;
    try {
      for (;;) if ((await body.read()).done) break;
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);

    // The reader got every replayed row, and keeps getting new ones.
    const rows = () =>
      new Set(reader.events.filter((e) => e.event === "record").map((e) => (e.data as { id: string }).id));
    await reader.until(() => earlier.every((id) => rows().has(id)));
    expect(earlier.every((id) => rows().has(id))).toBe(true);
    const fresh = (await submit(t, cast.member.token, path)).body.data.id as string;
    await reader.until((e) => e.event === "record" && (e.data as { id: string }).id === fresh);
    expect(rows().has(fresh)).toBe(true);
    expect(reader.ended).toBe(false);
  }, 60_000);
});
