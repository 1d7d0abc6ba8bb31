import type { EntityManager } from "@mikro-orm/postgresql";
import { loadUserAndDomainAccess, type DomainAccess } from "../identity/access";
import { assertDomainVisible } from "../identity/access-rules";
import type { BlobStore } from "../../storage/blob-store";
import { BizError } from "../../core/errors";
import { readRecordDetail } from "../records/records.service";
import { listRowsOf, type RecordListFilters } from "../records/record-list";
import { isFinal } from "../judging/record-states";
import { CLARIFICATION_CHANGE, RUN_CHANGE, type Change, type RecordBus } from "./record-events.bus";
import { isUuid } from "../../db/addressing";
import { ownRunViews } from "../runs/runs.service";
import { readableClarifications } from "../clarifications/clarifications.service";
import { holds } from "../identity/access-rules";
import { ownersOf } from "./change-owners";
import { serialised } from "./bursts";
import * as metrics from "../../runtime/metrics";

/** Where a stream's events go: the routes turn these into `text/event-stream` frames. */
export interface Sink {
  /**
   * Resolves at once while the client keeps up, else once it has read enough for more (or the stream was
   * dropped for not reading): a burst awaits each send, so that its output waits for the reader instead of
   * piling up in memory.
   */
  send(event: string, data: unknown, id: string): Promise<void>;
  /**
   * Bytes already in the stream's format (the Contest API feed's lines), written as they are and awaited as
   * `send`: the feeds of a contest write the same Uint8Array rather than each encoding its own.
   */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * An id alone (a frame without data): sets the client's last event id without an event, so a stream that
   * is cut before its first event still resumes from where it began (an EventSource sends it back).
   */
  position(id: string): void;
  /** Ends the stream (after a final state, or when the caller may no longer see it). */
  end(): void;
}

export interface StreamDeps {
  bus: RecordBus;
  fork: () => EntityManager;
  store: BlobStore;
  codeUrl: (recordId: string) => string;
}

/**
 * The caller's standing, read again for every burst of events: a demotion, a removal from the domain
 * or a deactivated account takes effect at the next event, exactly as on the next GET. Null: gone.
 */
async function standing(em: EntityManager, userId: string, domainId: string): Promise<DomainAccess | null> {
  try {
    const found = await loadUserAndDomainAccess(em, userId, domainId);
    if (!found) return null;
    const access = found.access();
    assertDomainVisible(access);
    return access;
  } catch (error) {
    if (error instanceof BizError) return null;
    throw error;
  }
}

/**
 * A list stream re-reads at most this often. Every change in a domain reaches every list stream there,
 * and each burst is a query or two: 300 students watching while judges report 50 cases a second would
 * otherwise be 30,000 queries a second. A quarter of a second still looks live. A record stream wakes
 * only for its own record, so it reads at once and shows every state a judge passes through.
 */
export const LIST_BURST_GAP_MS = 250;

/**
 * How long a list stream trusts the standing it last read to skip a burst of changes none of which it could
 * show (watchList): a removal from the domain ends such a stream at most this long after the next change.
 */
export const STANDING_FRESH_MS = 2_000;

/**
 * One record as it is judged: `record` (state and totals) when they change, `case` for each case
 * whose result changed, and `end` with the final state, after which the stream closes. Each burst
 * re-reads the record through the same checks and case-output rules as `GET …/records/{record}`. On
 * (re)connection the current record and its cases are sent whole: events are idempotent by case index.
 */
export async function watchRecord(
  deps: StreamDeps,
  userId: string,
  domainId: string,
  recordId: string,
  sink: Sink,
  onError: (error: unknown) => void,
): Promise<() => void> {
  const sent = { record: "", cases: [] as string[] };
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    stop();
    sink.end();
  };
  const burst = serialised(async (eventId) => {
    if (ended) return;
    const em = deps.fork();
    const access = await standing(em, userId, domainId);
    const detail =
      access &&
      (await readRecordDetail(em, deps.store, access, recordId, deps.codeUrl(recordId)).catch((error) => {
        if (error instanceof BizError) return null;
        throw error;
      }));
    if (!detail) return finish();
    const { cases, ...summary } = detail;
    const { id, state, score, timeMs, memoryKb, judgedAt } = summary;
    const head = { id, state, score, timeMs, memoryKb, judgedAt };
    if (JSON.stringify(head) !== sent.record) await sink.send("record", head, eventId);
    sent.record = JSON.stringify(head);
    // A rejudge clears the cases: what was sent before no longer stands.
    if (cases.length < sent.cases.length) sent.cases = [];
    for (const [index, c] of cases.entries()) {
      const text = JSON.stringify(c);
      if (text !== sent.cases[index]) await sink.send("case", { index, ...c }, eventId);
      sent.cases[index] = text;
    }
    if (isFinal(summary.state)) {
      await sink.send("end", { state: summary.state }, eventId);
      finish();
    }
  }, onError);
  const stop = await deps.bus.listen(domainId, (change) => {
    if (change.recordId === recordId) burst(change.id);
  });
  burst(await deps.bus.lastId(domainId));
  return () => {
    ended = true;
    stop();
  };
}

/**
 * The records list as it changes: a `record` event with the list row (the shape of `GET …/records`'
 * results) for each record of the domain that changed and that the list, with these filters, shows
 * the caller. Resuming after `Last-Event-ID` replays the changes since from the log; when the log no
 * longer reaches back that far, a `reset` event tells the client to reload the list.
 */
export async function watchList(
  deps: StreamDeps,
  userId: string,
  domainId: string,
  filters: RecordListFilters,
  lastEventId: string | null,
  sink: Sink,
  onError: (error: unknown) => void,
): Promise<() => void> {
  const changed = new Set<string>();
  const sentAt = new Map<string, string>();
  let stopped = false;
  // The standing last read, and a pending re-read of it when bursts were skipped (below).
  let known: { access: DomainAccess; at: number } | null = null;
  let due: ReturnType<typeof setTimeout> | null = null;
  /**
   * Whether a burst holds nothing this stream could show: its standing, read less than STANDING_FRESH_MS ago,
   * shows one committer's records (a student's own; a `submitterId` filter) and none of the changes is theirs,
   * nor a run of the caller's. Then nothing is read: a class's streams cost one shared statement per burst,
   * not three each. The standing is read again once it is stale, so a removal still ends the stream.
   */
  const nothingFor = async (seen: { access: DomainAccess; at: number }, ids: string[]) => {
    if (performance.now() - seen.at >= STANDING_FRESH_MS) return false;
    const only = filters.submitterId?.toLowerCase() ?? (holds(seen.access, "record.view") ? null : userId);
    if (only === null) return false;
    // A clarification may be anyone's to read (an announcement): never skipped.
    if (ids.some((id) => id.startsWith(CLARIFICATION_CHANGE))) return false;
    const owners = await ownersOf(deps.fork(), domainId, ids);
    return ids.every((id) => owners.get(id) !== (id.startsWith(RUN_CHANGE) ? userId : only));
  };
  const burst = serialised(
    async (eventId) => {
      if (stopped) return;
      const ids = [...changed];
      changed.clear();
      // The standing as this burst found it: the re-read timer below may clear `known` while it awaits
      // (a stream cut by "null is not an object (evaluating 'known.at')", issue 53).
      const seen = known;
      if (ids.length > 0 && seen && (await nothingFor(seen, ids))) {
        metrics.liveListBursts.inc({ outcome: "skipped" });
        due ??= setTimeout(
          () => {
            due = null;
            known = null;
            burst(eventId);
          },
          Math.max(0, seen.at + STANDING_FRESH_MS - performance.now()),
        );
        return;
      }
      if (ids.length === 0 && known) return;
      metrics.liveListBursts.inc({ outcome: "read" });
      const em = deps.fork();
      const access = await standing(em, userId, domainId);
      if (!access) {
        stopped = true;
        stop();
        return sink.end();
      }
      known = { access, at: performance.now() };
      const runs = ids.filter((id) => id.startsWith(RUN_CHANGE)).map((id) => id.slice(RUN_CHANGE.length));
      const clarifications = ids.filter((id) => id.startsWith(CLARIFICATION_CHANGE));
      // Records only: a run, a clarification or a membership's announcement is no record's id.
      const records = ids.filter(isUuid);
      if (records.length > 0)
        for (const row of await listRowsOf(em, access, filters, records)) {
          if (sentAt.get(row.id) === row.updatedAt) continue;
          sentAt.set(row.id, row.updatedAt);
          await sink.send("record", row, eventId);
        }
      // The caller's own runs (docs/api.md "Runs"), whatever the list's filters: a run is no record.
      const own = runs.filter(isUuid);
      if (own.length > 0) for (const run of await ownRunViews(em, access, own)) await sink.send("run", run, eventId);
      // New questions, answers and announcements the caller may read (docs/running-a-course.md), the set's alone
      // on a stream filtered to one set.
      const messages = clarifications.map((id) => id.slice(CLARIFICATION_CHANGE.length));
      for (const message of await readableClarifications(em, access, messages, filters.problemSet))
        await sink.send("clarification", message, eventId);
      // Bounded memory on a stream left open for a semester.
      if (sentAt.size > 10_000) sentAt.clear();
    },
    onError,
    LIST_BURST_GAP_MS,
  );
  const hear = (change: Change) => {
    changed.add(change.recordId);
    burst(change.id);
  };
  const stop = await deps.bus.listen(domainId, hear);
  if (!lastEventId) sink.position(await deps.bus.lastId(domainId));
  if (lastEventId) {
    const missed = await deps.bus.changesSince(domainId, lastEventId);
    const reason = "the events since Last-Event-ID are no longer kept: reload the list";
    if (missed === null) await sink.send("reset", { reason }, await deps.bus.lastId(domainId));
    else for (const change of missed) if (change.domainId === domainId) hear(change);
  }
  return () => {
    stopped = true;
    if (due) clearTimeout(due);
    stop();
  };
}
