import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import Redis from "ioredis";
import { spawnApp, TEST_REDIS_URL, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { parseSse } from "../helpers/sse";
import { announceRecordChange } from "../../src/modules/record-events/record-events.bus";

/**
 * The stream path as a property (docs/operations.md "Live streams"): any interleaving of record changes (a
 * judge's steps, rejudges, submissions, bare announcements), timer ticks, clients that read, stall, start
 * reading late or hang up, over record streams, list streams (a student's, which skips others' changes and
 * re-reads its standing on a timer, and staff's) and Contest API feeds, leaves no unhandled error, no error
 * logged, no event after a record stream's `end`, and every slot free once the clients are gone. The queue
 * bound is small, so that stalled clients are dropped along the way.
 */

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10);
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let problem: string;
let contest: string;
const redis = new Redis(TEST_REDIS_URL);
const records: string[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (error: unknown) => unhandled.push(error);

beforeAll(async () => {
  t = await spawnApp({ LIVE_HEARTBEAT_SECONDS: "1", LIVE_STREAM_QUEUE_KB: "2", LIVE_STREAMS_PER_USER: "1000" });
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  problem = await judgeableProblem(t, cast);
  const now = Date.now();
  const set = await t.api.post(
    `/domains/${cast.domain.id}/problem_sets`,
    {
      title: "Property round",
      scoreboardRule: "icpc",
      unlockAt: new Date(now - 3_600_000).toISOString(),
      dueAt: new Date(now + 3_600_000).toISOString(),
    },
    { token: cast.admin.token },
  );
  contest = set.body.data.id;
  await t.api.post(
    `/domains/${cast.domain.id}/problem_sets/${contest}/problems`,
    { problem },
    { token: cast.admin.token },
  );
  for (const who of [cast.member, cast.admin, cast.member]) records.push(await submitted(who));
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtException", onUnhandled);
});
afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  process.off("uncaughtException", onUnhandled);
  redis.disconnect();
  await t.close();
});

const domain = () => `/domains/${cast.domain.id}`;
const submitted = async (who: TestUser) =>
  (await submit(t, who.token, `${domain()}/problem_sets/${contest}/problems/${problem}/submit`)).body.data.id as string;

/** A client: reads all it is sent while `reading`, nothing otherwise; what it got is kept as text. */
class Client {
  text = "";
  reading = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | null;
  private pump: Promise<void> | null = null;
  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.reader =
      response.status === 200 ? (response.body!.getReader() as ReadableStreamDefaultReader<Uint8Array>) : null;
  }
  read() {
    this.reading = true;
    if (!this.reader || this.pump) return;
    const decoder = new TextDecoder();
    this.pump = (async () => {
      try {
        for (;;) {
          const { value, done } = await this.reader!.read();
          if (done) return;
          this.text += decoder.decode(value, { stream: true });
        }
      } catch {
        // hung up, or dropped by the server
      }
    })();
  }
  async close() {
    this.abort.abort();
    await this.reader?.cancel().catch(() => {});
    await this.pump;
  }
}

type Kind = "record" | "list" | "student-list" | "feed";
type Command =
  | { do: "open"; kind: Kind; record: number; read: boolean }
  | { do: "read" | "close"; stream: number }
  | { do: "judge" | "rejudge" | "announce"; record: number }
  | { do: "submit" }
  | { do: "tick"; ms: number };

async function open(kind: Kind, record: number): Promise<Client> {
  const path = {
    record: `/api/v1${domain()}/records/${records[record % records.length]}/events`,
    list: `/api/v1${domain()}/records/events`,
    "student-list": `/api/v1${domain()}/records/events`,
    feed: `/api/ccs/domains/${cast.domain.id}/contests/${contest}/event-feed`,
  }[kind];
  const token = kind === "student-list" ? cast.member.token : cast.admin.token;
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost${path}`, { signal: abort.signal, headers: { authorization: `Bearer ${token}` } }),
  );
  return new Client(response, abort);
}

/** The judge's next step on a record: claim, a case, the other case, the final report; refusals are fine. */
async function judgeStep(id: string) {
  const { state, task_id: taskId } = await recordRow(t, id);
  const base = `${domain()}/records/${id}`;
  const as = { token: judger.token };
  if (state === "queueing" || state === "waiting") return t.api.post(`${base}/judge/claim`, { taskId }, as);
  const cases = (await t.api.get(base, { token: cast.admin.token })).body.data?.cases ?? [];
  const next = cases.findIndex((c: { state: string }) => c.state !== "accepted");
  if (next >= 0 && next < 2)
    return t.api.put(`${base}/cases/${next}/judge`, { state: "accepted", score: 50, timeMs: 3, taskId }, as);
  return t.api.put(`${base}/judge`, { state: "accepted", taskId }, as);
}

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      do: fc.constant("open" as const),
      kind: fc.constantFrom<Kind>("record", "list", "student-list", "feed"),
      record: fc.nat(9),
      read: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ do: fc.constantFrom("read" as const, "close" as const), stream: fc.nat(20) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      do: fc.constantFrom("judge" as const, "rejudge" as const, "announce" as const),
      record: fc.nat(9),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ do: "submit" as const }) },
  { weight: 3, arbitrary: fc.record({ do: fc.constant("tick" as const), ms: fc.constantFrom(0, 5, 60, 300, 2_100) }) },
);

/** Runs the commands without waiting for changes to land (they interleave with what follows), then cleans up. */
async function play(commands: Command[]) {
  const clients: { kind: Kind; client: Client }[] = [];
  const pending: Promise<unknown>[] = [];
  const record = (i: number) => records[i % records.length];
  for (const c of commands) {
    if (c.do === "open") {
      const client = await open(c.kind, c.record);
      if (c.read) client.read();
      clients.push({ kind: c.kind, client });
    } else if (c.do === "read") clients[c.stream % Math.max(1, clients.length)]?.client.read();
    else if (c.do === "close") pending.push(clients[c.stream % Math.max(1, clients.length)]?.client.close());
    else if (c.do === "judge") pending.push(judgeStep(record(c.record)));
    else if (c.do === "rejudge")
      pending.push(t.api.post(`${domain()}/records/${record(c.record)}/rejudge`, {}, { token: cast.admin.token }));
    else if (c.do === "announce")
      pending.push(announceRecordChange(t.jobs, t.logger, cast.domain.id, record(c.record)));
    else if (c.do === "submit") pending.push(submitted(cast.member).then((id) => records.push(id)));
    else if (c.do === "tick") await Bun.sleep(c.ms);
  }
  await Promise.all(pending);
  // What the record streams said before they were closed: nothing after `end`.
  for (const { kind, client } of clients)
    if (kind === "record") {
      const events = parseSse(client.text).events;
      const end = events.findIndex((e) => e.event === "end");
      expect(end === -1 || end === events.length - 1).toBe(true);
    }
  await Promise.all(clients.map(({ client }) => client.close()));
}

/** The site's slots, waited for (bounded) to reach none: a closed stream frees them without being awaited. */
async function slotsLeft(): Promise<number> {
  const key = `${t.config.queuePrefix}:records:site-streams`;
  const deadline = Date.now() + 5_000;
  for (;;) {
    const held = await redis.zcard(key);
    if (held === 0 || Date.now() > deadline) return held;
    await Bun.sleep(20);
  }
}

test("changes, ticks, reads and hang-ups in any order: no unhandled error, no event after close, slots freed", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 25 }), async (commands) => {
      await play(commands);
      expect(await slotsLeft()).toBe(0);
      expect(unhandled).toEqual([]);
      expect(t.logs.filter((l) => l.level === "error")).toEqual([]);
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
}, 600_000);
