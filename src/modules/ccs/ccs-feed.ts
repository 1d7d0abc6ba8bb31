import { MEMBER_CHANGE, RUN_CHANGE, SET_CHANGE, type RecordBus } from "../record-events/record-events.bus";
import { BizError } from "../../core/errors";
import { isStreamId } from "../record-events/record-events.log";
import type { Sink } from "../record-events/record-events.service";
import { serialised } from "../record-events/bursts";
import type { ScoreboardView } from "../scoreboard/scoreboard.schemas";
import { type CcsContext, contestOf, frozenNow, type Snapshot, snapshotOf, stateOf } from "./ccs-contest";
import { awardsOf, boardOf } from "./ccs-scoreboard";
import { type FeedRead, joinReads, readShared } from "./ccs-feed-reads";

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

export async function watchFeed(
  deps: FeedDeps,
  since: { position: string; tag: string } | null,
  stream: boolean,
  sink: Sink,
  onError: (error: unknown) => void,
): Promise<() => void> {
  const sent = new Map<string, string>();
  let stopped = false;
  const emit = (n: Notification, token: string) =>
    sink.send(n.type, { type: n.type, id: n.id, data: n.data, token }, token);
  const readWhole = async (): Promise<FeedRead> => {
    const ctx = await deps.context();
    const snapshot = await snapshotOf(ctx);
    // A hidden scoreboard (scoreboardHidden) gives no awards to those who may not see it.
    const all = notificationsOf(snapshot, await boardOf(ctx).catch(hiddenBoard));
    const texts = new Map([...all].map(([key, n]) => [key, { ...n, text: JSON.stringify(n.data) }]));
    return { ctx, tag: tagOf(ctx), all: texts };
  };
  // Everything now (or, resuming, what changed since), each object's text kept to send only changes later.
  const opened = performance.now();
  const position = await deps.bus.lastId(deps.domainId);
  // A read begun after the feed opened: shared with the contest's other feeds of the same view.
  const first = await readShared(deps.shareKey, opened, readWhole);
  let tag = first.tag;
  // The records changed since the token; everything (null) when the freeze moved since, or when the log was
  // trimmed past the token between the route's check and now.
  const missed = since && since.tag === tag ? await deps.bus.changesSince(deps.domainId, since.position) : null;
  const changed = missed ? new Set(missed.map((c) => c.recordId)) : null;
  for (const [key, n] of first.all) {
    sent.set(key, n.text);
    if (!changed || !LIVE.has(n.type) || (n.record && changed.has(n.record))) await emit(n, `${position}~${tag}`);
  }
  // Teams removed since the token (their membership's announcement) and problems taken out of this set: the
  // deletions a live feed sent then.
  for (const team of new Set((missed ?? []).flatMap((c) => removedTeam(c.recordId))))
    if (!first.all.has(`teams/${team}`)) await emit({ type: "teams", id: team, data: null }, `${position}~${tag}`);
  for (const problem of new Set((missed ?? []).flatMap((c) => removedProblem(c.recordId, first.ctx.set.id))))
    if (!first.all.has(`problems/${problem}`))
      await emit({ type: "problems", id: problem, data: null }, `${position}~${tag}`);
  if (!stream) {
    sink.end();
    return () => {};
  }

  // When the newest change this feed heard came: a burst takes a shared read begun after it.
  let heardAt = opened;
  const leave = joinReads(deps.shareKey);
  const burst = serialised(
    async (position) => {
      if (stopped) return;
      const read = await readShared(deps.shareKey, heardAt, readWhole);
      tag = read.tag;
      const token = `${position}~${tag}`;
      for (const [key, n] of read.all) {
        if (sent.get(key) === n.text) continue;
        sent.set(key, n.text);
        await emit(n, token);
      }
      // Gone since (a record deleted with its problem): the spec's deletion, `data: null`.
      for (const key of [...sent.keys()])
        if (!read.all.has(key)) {
          sent.delete(key);
          const [type, id] = [key.slice(0, key.indexOf("/")), key.slice(key.indexOf("/") + 1)];
          await emit({ type, id: id || null, data: null }, token);
        }
    },
    onError,
    BURST_GAP_MS,
  );
  let lastPosition = position;
  const stop = await deps.bus
    .listen(deps.domainId, (change) => {
      // A run on the user's own input is no submission: nothing of a contest changes with it.
      if (change.recordId.startsWith(RUN_CHANGE)) return;
      lastPosition = change.id;
      heardAt = performance.now();
      burst(change.id);
    })
    .catch((error) => {
      leave();
      throw error;
    });
  // A change between the first read and the subscription would otherwise wait for the next one: a read begun
  // after the subscription.
  heardAt = performance.now();
  burst(position);
  // The freeze, the end and the thaw come with no record change, nor does an edit of the set: looked at every second.
  const clock = setInterval(() => {
    void deps
      .context()
      .then((ctx) => {
        if (stopped) return;
        const state = JSON.stringify(stateOf(ctx.set, ctx.now));
        const contest = JSON.stringify(contestOf(ctx.set));
        if (state === sent.get("state/") && contest === sent.get("contest/") && tagOf(ctx) === tag) return;
        heardAt = performance.now();
        burst(lastPosition);
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
