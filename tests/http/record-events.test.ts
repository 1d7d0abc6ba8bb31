import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { readStream, type SseEvent } from "../helpers/sse";
import Redis from "ioredis";
import { logOf } from "../../src/modules/record-events/record-events.bus";
import { announceRecordChange } from "../../src/modules/record-events/record-events.bus";
import { liveListBursts } from "../../src/runtime/metrics";

let t: TestApp;
let cast: Cast;
let judger: TestUser;
let problem: string;
let other: string;
const domain = () => `/domains/${cast.domain.id}`;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await spawnApp({ LIVE_STREAMS_PER_USER: "3", LIVE_HEARTBEAT_SECONDS: "1" });
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  // Case 0 is a pretest (its output is public), case 1 is not: its output is for record.detail holders.
  problem = await judgeableProblem(t, cast, { categories: ["pretest", "private"] });
  other = await judgeableProblem(t, cast);
});
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  await t.close();
});

/** Opens a live stream as a browser's EventSource would (the token stands in for the cookie). */
async function stream(path: string, token?: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${path}`, {
      signal: abort.signal,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    }),
  );
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const reader = readStream(response, abort);
    open.push(reader);
    return { response, reader };
  }
  return { response, reader: null };
}

async function submitted(token: string, to = problem) {
  const id = (await submit(t, token, `${domain()}/problems/${to}`)).body.data.id as string;
  return { id, taskId: (await recordRow(t, id)).task_id! };
}

const judgeCall = (id: string, path: string, body: object) =>
  t.api.put(`${domain()}/records/${id}${path}`, body, { token: judger.token });
const states = (events: SseEvent[]) =>
  events.filter((e) => e.event === "record").map((e) => (e.data as { state: string }).state);

describe("GET …/records/{record}/events", () => {
  test("the record's states, each case as reported, then `end` with the final state; cases as GET shows them", async () => {
    const { id, taskId } = await submitted(cast.member.token);
    const { response, reader } = await stream(`${domain()}/records/${id}/events`, cast.member.token);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await reader!.until((e) => e.event === "record")).toMatchObject({
      data: { id, state: "queueing", score: 0 },
    });
    await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId }, { token: judger.token });
    await reader!.until((e) => e.event === "record" && (e.data as { state: string }).state === "fetched");
    await judgeCall(id, "/judge", { state: "compiling" });
    await reader!.until((e) => (e.data as { state?: string }).state === "compiling");
    await judgeCall(id, "/judge", { state: "running" });
    await reader!.until((e) => (e.data as { state?: string }).state === "running");
    await judgeCall(id, "/cases/0/judge", {
      state: "accepted",
      score: 10,
      timeMs: 3,
      memoryKb: 900,
      stdout: "3\n",
      stderr: "",
    });
    const first = await reader!.until((e) => e.event === "case");
    expect(first?.data).toMatchObject({ index: 0, state: "accepted", score: 10, stdout: "3\n" });
    await judgeCall(id, "/cases/1/judge", {
      state: "wrong_answer",
      score: 0,
      timeMs: 4,
      memoryKb: 950,
      stdout: "the secret answer",
      stderr: "",
    });
    await judgeCall(id, "/judge", { state: "rejected" });
    expect(await reader!.until((e) => e.event === "end")).toMatchObject({ data: { state: "rejected" } });
    await reader!.until(() => false, 2_000);
    expect(reader!.ended).toBe(true);
    // The state moves forward only; totals changing under one state repeat it (a case's score, its time).
    expect([...new Set(states(reader!.events))]).toEqual(["queueing", "fetched", "compiling", "running", "rejected"]);
    // Each case event is the case exactly as GET shows it to this caller: case 1's output is blanked.
    const detail = (await t.api.get(`${domain()}/records/${id}`, { token: cast.member.token })).body.data;
    const lastOf = (index: number) =>
      reader!.events.filter((e) => e.event === "case" && (e.data as { index: number }).index === index).at(-1);
    expect(lastOf(0)?.data).toEqual({ index: 0, ...detail.cases[0] });
    expect(lastOf(1)?.data).toEqual({ index: 1, ...detail.cases[1] });
    expect(detail.cases[1].stdout).toBe("");
    // Event ids are the change log's, in order.
    const ids = reader!.events.map((e) => e.id);
    expect(ids.every((eid) => /^\d+-\d+$/.test(eid))).toBe(true);
  });

  test("a final record answers with its whole state and ends at once", async () => {
    const { id, taskId } = await submitted(cast.member.token);
    await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId }, { token: judger.token });
    await judgeCall(id, "/judge", { state: "accepted", score: 20 });
    const { reader } = await stream(`${domain()}/records/${id}/events`, cast.member.token);
    expect(await reader!.until((e) => e.event === "end")).toMatchObject({ data: { state: "accepted" } });
    expect(states(reader!.events)).toEqual(["accepted"]);
  });

  test("refused as GET refuses: anonymous 401, another's record 403, a record of nowhere not found", async () => {
    const { id } = await submitted(cast.admin.token);
    expect((await stream(`${domain()}/records/${id}/events`)).response.status).toBe(401);
    const refused = await stream(`${domain()}/records/${id}/events`, cast.member.token);
    expect(refused.response.status).toBe(403);
    expect(await refused.response.json()).toEqual({ detail: "record view Permission Denied." });
    const missing = await stream(`${domain()}/records/00000000-0000-4000-8000-000000000000/events`, cast.member.token);
    expect(((await missing.response.json()) as { errorCode: string }).errorCode).toBe("RecordNotFoundError");
  });
});

describe("GET …/records/events", () => {
  test("rows of the records the list shows this caller, with the list's filters; another problem's stay out", async () => {
    const { reader } = await stream(`${domain()}/records/events?problem=${problem}`, cast.admin.token);
    await Bun.sleep(200);
    const mine = await submitted(cast.member.token);
    const elsewhere = await submitted(cast.member.token, other);
    const row = await reader!.until((e) => (e.data as { id: string }).id === mine.id);
    const list = (await t.api.get(`${domain()}/records?problem=${problem}`, { token: cast.admin.token })).body.data
      .results;
    expect(row?.data).toEqual(list.find((r: { id: string }) => r.id === mine.id));
    await reader!.until(() => false, 1_000);
    expect(reader!.events.some((e) => (e.data as { id: string }).id === elsewhere.id)).toBe(false);
  });

  test("Last-Event-ID replays what a dropped connection missed; one too old gets `reset`", async () => {
    const first = await stream(`${domain()}/records/events`, cast.admin.token);
    await Bun.sleep(200);
    const seen = await submitted(cast.admin.token);
    const last = await first.reader!.until((e) => (e.data as { id: string }).id === seen.id);
    await first.reader!.close();
    const missed = [await submitted(cast.admin.token), await submitted(cast.member.token)];
    const resumed = await stream(`${domain()}/records/events`, cast.admin.token, { "last-event-id": last!.id });
    for (const { id } of missed)
      expect(await resumed.reader!.until((e) => (e.data as { id: string }).id === id)).toBeDefined();
    expect(resumed.reader!.events.some((e) => (e.data as { id: string }).id === seen.id)).toBe(false);
    await resumed.reader!.close();
    // From before the first entry of a log that lost nothing (a stream opened on an empty log): all of it.
    const whole = await stream(`${domain()}/records/events`, cast.admin.token, { "last-event-id": "0-0" });
    expect(await whole.reader!.until((e) => (e.data as { id: string }).id === seen.id)).toBeDefined();
    expect(whole.reader!.events.some((e) => e.event === "reset")).toBe(false);
    await whole.reader!.close();
    // Once the log is trimmed past a position, that position gets `reset`.
    const redis = new Redis(t.config.redisUrl);
    await redis.xtrim(logOf(t.config.queuePrefix, cast.domain.id), "MINID", last!.id);
    await redis.quit();
    const stale = await stream(`${domain()}/records/events`, cast.admin.token, { "last-event-id": "1-0" });
    expect((await stale.reader!.until((e) => e.event === "reset"))?.event).toBe("reset");
  });

  test("a stream opens with its position, so one cut before its first event resumes without a gap", async () => {
    const abort = new AbortController();
    const response = await t.app.handle(
      new Request(`http://localhost/api/v1${domain()}/records/events`, {
        signal: abort.signal,
        headers: { authorization: `Bearer ${cast.owner.token}` },
      }),
    );
    const reader = response.body!.getReader();
    let text = "";
    while (!/\nid: [^\n]+\n\n/.test(`\n${text}`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const position = /(?:^|\n)id: ([^\n]+)\n\n/.exec(text)![1];
    expect(text).not.toContain("event:");
    abort.abort();
    await reader.cancel().catch(() => {});
    const missed = await submitted(cast.member.token);
    const resumed = await stream(`${domain()}/records/events`, cast.owner.token, { "last-event-id": position });
    expect(await resumed.reader!.until((e) => (e.data as { id: string }).id === missed.id)).toBeDefined();
    await resumed.reader!.close();
  });

  test("a rejudge shows on the list: the judged record's row comes back waiting", async () => {
    const { id, taskId } = await submitted(cast.admin.token);
    await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId }, { token: judger.token });
    await judgeCall(id, "/judge", { state: "accepted", score: 20 });
    const { reader } = await stream(`${domain()}/records/events`, cast.owner.token);
    await Bun.sleep(200);
    expect(
      (await t.api.post(`${domain()}/records/${id}/rejudge`, {}, { token: cast.admin.token })).body.errorCode,
    ).toBe("Success");
    // The judge's own report may still be on its way (announcements wait a few ms to share a trip to Redis).
    const row = await reader!.until((e) => {
      const data = e.data as { id: string; state: string };
      return data.id === id && data.state !== "accepted";
    });
    expect(row?.data).toMatchObject({ id, state: "queueing", score: 0 });
    await reader!.close();
  });

  test("resuming replays every missed change however many, and another domain's flood evicts nothing here", async () => {
    // The site root: the admin's stream slots are held by the tests above.
    const first = await stream(`${domain()}/records/events`, cast.siteRoot.token);
    await Bun.sleep(200);
    const seen = await submitted(cast.siteRoot.token);
    const last = await first.reader!.until((e) => (e.data as { id: string }).id === seen.id);
    await first.reader!.close();
    // 1,500 changes of records this caller cannot see (ids of nothing), then a real one; and 11,000 elsewhere.
    const nothing = Array.from({ length: 1500 }, () => crypto.randomUUID());
    await announceRecordChange(t.jobs, t.logger, cast.domain.id, ...nothing);
    const missed = await submitted(cast.siteRoot.token);
    const elsewhere = crypto.randomUUID();
    await announceRecordChange(
      t.jobs,
      t.logger,
      elsewhere,
      ...Array.from({ length: 11_000 }, () => crypto.randomUUID()),
    );
    const resumed = await stream(`${domain()}/records/events`, cast.siteRoot.token, { "last-event-id": last!.id });
    expect(await resumed.reader!.until((e) => (e.data as { id: string }).id === missed.id)).toBeDefined();
    expect(resumed.reader!.events.some((e) => e.event === "reset")).toBe(false);
    await resumed.reader!.close();
  }, 60_000);

  test("a Last-Event-ID Redis cannot read gets `reset` and a live stream, not a stream that ends at once", async () => {
    const odd = await stream(`${domain()}/records/events`, cast.siteRoot.token, {
      "last-event-id": "18446744073709551615-18446744073709551615",
    });
    expect((await odd.reader!.until((e) => e.event === "reset"))?.event).toBe("reset");
    const change = await submitted(cast.siteRoot.token);
    expect(await odd.reader!.until((e) => (e.data as { id: string }).id === change.id)).toBeDefined();
    expect(odd.reader!.ended).toBe(false);
    await odd.reader!.close();
  });

  test("permissions are checked again at every event: a member removed from the domain stops receiving", async () => {
    const member = await createUser(t);
    await t.api.post(`${domain()}/users`, { user: member.user.id, role: "user" }, { token: cast.owner.token });
    const { reader } = await stream(`${domain()}/records/events`, member.token);
    await Bun.sleep(200);
    const own = await submitted(member.token);
    await reader!.until((e) => (e.data as { id: string }).id === own.id);
    // Without record.view the list shows a member their own records only.
    const admins = await submitted(cast.admin.token);
    await reader!.until(() => false, 500);
    expect(reader!.events.some((e) => (e.data as { id: string }).id === admins.id)).toBe(false);
    expect(
      (await t.api.delete(`${domain()}/users/${member.user.id}`, { token: cast.owner.token })).body.errorCode,
    ).toBe("Success");
    await submitted(cast.admin.token);
    await reader!.until(() => false, 3_000);
    expect(reader!.ended).toBe(true);
  });

  test("a class's streams read nothing for others' changes, and still get their own at once", async () => {
    const reads = async (outcome: "read" | "skipped") =>
      (await liveListBursts.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    const students = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const student = await createUser(t);
        await t.api.post(`${domain()}/users`, { user: student.user.id, role: "user" }, { token: cast.owner.token });
        return { student, ...(await stream(`${domain()}/records/events`, student.token)) };
      }),
    );
    // The first change: each stream reads its standing once.
    await submitted(cast.admin.token);
    await Bun.sleep(500);
    const [read, skipped] = [await reads("read"), await reads("skipped")];
    // Twelve more of the TA's, each its own burst: without the skip, 120 reads of standing and rows.
    for (let i = 0; i < 12; i++) {
      await submitted(cast.admin.token);
      await Bun.sleep(300);
    }
    expect((await reads("skipped")) - skipped).toBeGreaterThanOrEqual(10);
    expect((await reads("read")) - read).toBeLessThan(60);
    // A student's own submission among them is read and sent at once; the others saw none of the TA's.
    const own = await submitted(students[3].student.token);
    await students[3].reader!.until((e) => (e.data as { id: string }).id === own.id, 5_000);
    expect(students[3].reader!.events.some((e) => (e.data as { id: string }).id === own.id)).toBe(true);
    for (const { reader } of students)
      expect(
        reader!.events.filter((e) => e.event === "record").every((e) => (e.data as { id: string }).id === own.id),
      ).toBe(true);
  }, 60_000);

  test("at most LIVE_STREAMS_PER_USER streams per user (429); closing one frees its slot; heartbeats keep them alive", async () => {
    const user = await createUser(t);
    await t.api.post(`${domain()}/users`, { user: user.user.id, role: "user" }, { token: cast.owner.token });
    const streams: Awaited<ReturnType<typeof stream>>[] = [];
    for (let i = 0; i < 3; i++) streams.push(await stream(`${domain()}/records/events`, user.token));
    const refused = await stream(`${domain()}/records/events`, user.token);
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get("retry-after")).toBeTruthy();
    expect(((await refused.response.json()) as { errorMsg: string }).errorMsg).toContain("at most 3 live streams");
    // Another user is not affected.
    expect((await stream(`${domain()}/records/events`, cast.owner.token)).response.status).toBe(200);
    // A heartbeat each LIVE_HEARTBEAT_SECONDS (1 here), though nothing else comes.
    expect(await streams[0].reader!.comment("heartbeat", 3_000)).toBe(true);
    await streams[0].reader!.close();
    await Bun.sleep(200);
    expect((await stream(`${domain()}/records/events`, user.token)).response.status).toBe(200);
  });
});
