import { MEMBER_CHANGE, RUN_CHANGE, SET_CHANGE, type RecordBus } from "../record-events/record-events.bus";
import { BizError } from "../../core/errors";
import { isStreamId } from "../record-events/record-events.log";
import type { Sink } from "../record-events/record-events.service";
import { serialised } from "../record-events/bursts";
import type { ScoreboardView } from "../scoreboard/scoreboard.schemas";
import { type CcsContext, contestOf, frozenNow, type Snapshot, snapshotOf, stateOf } from "./ccs-contest";
import { awardsOf, boardOf } from "./ccs-scoreboard";
import { type FeedRead, joinReads, readShared } from "./ccs-feed-reads";
import { changesOf, deletionOf, dumpOf, lineOf } from "./ccs-feed-lines";

/**
 * The Contest API's event feed (docs/contest-api.md "Event feed"): every object of the contest as a
 * notification `{type, id, data, token}`, then, live, each object that changes — a submission, its judgement
 * and runs as the judge reports them, the state at the freeze, the end and the thaw, the awards — until the
 * client goes; a member added, removed or given another role sends the teams again (a removed one's deletion),
 * live and on resume. A token is the domain's change-log position with the caller's view of the freeze (`~f` frozen,
 * `~o` open): `since_token` sends the configuration and the state again, and of the live objects those whose
 * record changed since (all of them when the freeze was lifted since, which changes what the public sees).
 */
export interface FeedDeps {
  bus: RecordBus;
  domainId: string;
  /** The contest as the caller sees it now: a fresh database context and the set read again. */
  context: () => Promise<CcsContext>;
  /** Feeds of equal keys see the same contest, and share their reads of it (ccs-feed-reads.ts). */
  shareKey: string;
}

type Notification = { type: string; id: string | null; data: unknown };

/** Live objects carry their record's id (not sent): a resume sends those of the records changed since. */
const LIVE = new Set(["submissions", "judgements", "runs"]);
const BURST_GAP_MS = 250;
const STATE_CHECK_MS = 1000;

/** The board the caller may not see (a set's hidden scoreboard): none; anything else is an error. */
const hiddenBoard = (error: unknown): null => {
  if (error instanceof BizError && error.code === "ScoreboardHiddenBadRequestError") return null;
  throw error;
};

/** A token this feed gave: its log position and freeze tag; null when it is not one. */
export function parseToken(token: string): { position: string; tag: string } | null {
  const match = /^([^~]+)~([fo])$/.exec(token);
  return match && isStreamId(match[1]) ? { position: match[1], tag: match[2] } : null;
}

const tagOf = (ctx: CcsContext) => (ctx.view === "public" && frozenNow(ctx.set, ctx.now) ? "f" : "o");

/** Every object of the contest, in the spec's order of types, keyed `type/id`. */
export function notificationsOf(
  snapshot: Snapshot,
  board: ScoreboardView | null,
): Map<string, Notification & { record?: string }> {
  const all = new Map<string, Notification & { record?: string }>();
  const put = (type: string, id: string | null, data: unknown, record?: string) =>
    all.set(`${type}/${id ?? ""}`, { type, id, data, record });
  put("contest", null, snapshot.contest);
  for (const type of ["judgement-types", "languages", "problems", "groups", "organizations", "teams"] as const)
    for (const object of snapshot[type]) put(type, object.id, publicFields(object));
  put("state", null, snapshot.state);
  for (const s of snapshot.submissions) put("submissions", s.id, s, s.id);
  for (const { record, ...j } of snapshot.judgements) put("judgements", j.id, j, record);
  for (const { record, ...r } of snapshot.runs) put("runs", r.id, r, record);
  for (const clarification of snapshot.clarifications) put("clarifications", clarification.id, clarification);
  for (const award of board ? awardsOf(snapshot, board) : []) put("awards", award.id, award);
  return all;
}

/** The team a membership's announcement names (a team's id is its user's), if it names one. */
const removedTeam = (changeId: string): string[] =>
  changeId.startsWith(MEMBER_CHANGE) && changeId.length > MEMBER_CHANGE.length
    ? [changeId.slice(MEMBER_CHANGE.length)]
    : [];

/** The Contest API id of a problem an announcement says was taken out of this set (its UUID's first 8 characters). */
const removedProblem = (changeId: string, setId: string): string[] => {
  const prefix = `${SET_CHANGE}${setId}/`;
  return changeId.startsWith(prefix) ? [changeId.slice(prefix.length, prefix.length + 8)] : [];
};

/** What an object says, without our own fields (a problem's UUID). */
function publicFields(object: object): object {
  const { uuid: _uuid, ...rest } = object as { uuid?: string };
  return rest;
}

/**
 * A read of the whole contest as the feed's caller sees it, each object kept as its data's JSON alone (the line
 * is made from it: ccs-feed-lines.ts), its lines not yet encoded. The log position is read first: all the read
 * shows includes the changes up to it.
 */
async function readWhole(deps: FeedDeps): Promise<FeedRead> {
  const position = await deps.bus.lastId(deps.domainId);
  const ctx = await deps.context();
  const snapshot = await snapshotOf(ctx);
  // A hidden scoreboard (scoreboardHidden) gives no awards to those who may not see it.
  const all: FeedRead["all"] = new Map();
  for (const [key, n] of notificationsOf(snapshot, await boardOf(ctx).catch(hiddenBoard)))
    all.set(key, { type: n.type, id: n.id, record: n.record, text: JSON.stringify(n.data) });
  return { position, tag: tagOf(ctx), setId: ctx.set.id, all, lines: new Map(), dump: null, diffs: new WeakMap() };
}

/** Everything now (or, resuming, what changed since): the read sent, to send only changes later. */
async function sendFirst(
  deps: FeedDeps,
  since: { position: string; tag: string } | null,
  sink: Sink,
  { opened, live }: { opened: number; live: boolean },
) {
  // A read begun after the feed opened, shared with the contest's other feeds of the same view; a live feed also
  // takes one under way (it looks for what changed since as soon as it listens: watchLive).
  const first = await readShared(deps.shareKey, opened, () => readWhole(deps), live);
  // The records changed since the token; everything (null) when the freeze moved since, or when the log was
  // trimmed past the token between the route's check and now.
  const missed = since && since.tag === first.tag ? await deps.bus.changesSince(deps.domainId, since.position) : null;
  if (!missed) {
    for (const line of dumpOf(first)) await sink.write(line);
    return first;
  }
  const changed = new Set(missed.map((c) => c.recordId));
  for (const [key, n] of first.all)
    if (!LIVE.has(n.type) || (n.record && changed.has(n.record))) await sink.write(lineOf(first, key));
  // Teams removed since the token (their membership's announcement) and problems taken out of this set: the
  // deletions a live feed sent then.
  for (const team of new Set(missed.flatMap((c) => removedTeam(c.recordId))))
    if (!first.all.has(`teams/${team}`)) await sink.write(deletionOf(first, "teams", team));
  for (const problem of new Set(missed.flatMap((c) => removedProblem(c.recordId, first.setId))))
    if (!first.all.has(`problems/${problem}`)) await sink.write(deletionOf(first, "problems", problem));
  return first;
}

export async function watchFeed(
  deps: FeedDeps,
  since: { position: string; tag: string } | null,
  stream: boolean,
  sink: Sink,
  onError: (error: unknown) => void,
): Promise<() => void> {
  const opened = performance.now();
  // Joined before the first read, so that feeds opening together share it too.
  const leave = joinReads(deps.shareKey);
  try {
    const first = await sendFirst(deps, since, sink, { opened, live: stream });
    if (stream) return await watchLive(deps, first, sink, onError, leave);
    sink.end();
  } catch (error) {
    leave();
    throw error;
  }
  leave();
  return () => {};
}

/**
 * The live part, from the read the feed sent last (the only state a feed keeps: what it sent is that read's).
 * A function of its own so that its closures hold no earlier read: an async function's locals live as long as
 * any closure made in it.
 */
async function watchLive(
  deps: FeedDeps,
  first: FeedRead,
  sink: Sink,
  onError: (error: unknown) => void,
  leave: () => void,
): Promise<() => void> {
  let sent = first;
  let stopped = false;
  // When the newest change this feed heard came: a burst takes a shared read begun after it.
  let heardAt = performance.now();
  const burst = serialised(
    async () => {
      if (stopped) return;
      const read = await readShared(deps.shareKey, heardAt, () => readWhole(deps));
      if (read === sent) return;
      for (const line of changesOf(sent, read)) await sink.write(line);
      sent = read;
    },
    onError,
    BURST_GAP_MS,
  );
  // When the bus heard it (the same for every feed that hears a change, so that they share one read), else now.
  const heard = (at = performance.now()) => {
    heardAt = at;
    burst("");
  };
  const stop = await deps.bus.listen(deps.domainId, (change) => {
    // A run on the user's own input is no submission: nothing of a contest changes with it.
    if (!change.recordId.startsWith(RUN_CHANGE)) heard(change.heardAt);
  });
  // A change between the first read and the subscription would otherwise wait for the next one. The log and the
  // channel get an announcement in one script, so one not heard is in the log by now.
  if ((await deps.bus.lastId(deps.domainId).catch(() => "")) !== first.position) heard();
  // The freeze, the end and the thaw come with no record change, nor does an edit of the set: looked at every second.
  // A change seen so is heard as of when the look began: the contest's feeds see it within the same second, and
  // those whose looks began before a read did take that read (one the change missed is looked at again).
  const clock = setInterval(() => {
    const looked = performance.now();
    void deps
      .context()
      .then((ctx) => {
        if (stopped) return;
        const state = JSON.stringify(stateOf(ctx.set, ctx.now));
        const contest = JSON.stringify(contestOf(ctx.set));
        const same = state === sent.all.get("state/")?.text && contest === sent.all.get("contest/")?.text;
        if (!same || tagOf(ctx) !== sent.tag) heard(looked);
      })
      .catch(onError);
  }, STATE_CHECK_MS);
  return () => {
    stopped = true;
    clearInterval(clock);
    stop();
    leave();
  };
}
