import Redis from "ioredis";
import type { JobClient } from "../../jobs/job-client";
import type { Logger } from "../../core/logger";
import { trimmedPast } from "./record-events.log";

/**
 * The record-change bus: whoever changes a record (a judge report, a submission, the reconciler, a
 * rejudge) announces `(domain, record)`; every API process hears it through Redis pub/sub and tells
 * the live streams of that domain (record-events.service.ts), which re-read the record themselves.
 * A message carries no record data, so nothing a stream sends skips the reader's permission checks.
 *
 * Each announcement is also appended to a capped Redis stream, in the same script, so its id (the SSE
 * event id) orders announcements identically on the log and on the channel: a client resuming with
 * `Last-Event-ID` reads the log after that id and misses nothing the channel carried.
 */
/** Per domain: one class's bulk rejudge must not push another's history out. */
const LOG_LENGTH = 10_000;
const ANNOUNCE = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'd', ARGV[2], 'r', ARGV[3])
redis.call('PUBLISH', KEYS[2], id .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
return id`;

/**
 * A run's announcement (docs/api.md "Runs") on the same bus: its id marked, so that record streams pass it
 * over and the owner's list stream sends it as a `run` event.
 */
export const RUN_CHANGE = "run:";
export const runChange = (runId: string) => `${RUN_CHANGE}${runId}`;

/** A clarification's announcement: list streams send it as a `clarification` event to those who may read it. */
export const CLARIFICATION_CHANGE = "clarification:";
export const clarificationChange = (id: string) => `${CLARIFICATION_CHANGE}${id}`;

/**
 * A membership's announcement (a member added, removed or given another role; a role's permissions edited:
 * `member:` alone): it changes a contest's teams. Contest API feeds send the teams again, and a removed
 * one's deletion, live and on resume; record streams pass it over.
 */
export const MEMBER_CHANGE = "member:";
export const memberChange = (userId = "") => `${MEMBER_CHANGE}${userId}`;

/**
 * A problem set's announcement (its problems added, moved or taken out; the set edited): Contest API feeds of
 * the domain look again at the contest's problems and languages at once; record streams pass it over. A problem
 * taken out is named (`set:<set>/<problem>`): a feed resumed from before it sends its deletion.
 */
export const SET_CHANGE = "set:";
export const setChange = (setId: string, removedProblem?: string) =>
  `${SET_CHANGE}${setId}${removedProblem ? `/${removedProblem}` : ""}`;

export const channelOf = (queuePrefix: string) => `${queuePrefix}:records:events`;
export const logOf = (queuePrefix: string, domainId: string) => `${queuePrefix}:records:log:${domainId}`;

/** How long an announcement waits for others to share its trip to Redis. */
const ANNOUNCE_WINDOW_MS = 10;

/**
 * Announces that records of a domain changed. Never fails the change itself: the record is safe in
 * PostgreSQL, and a stream that misses an announcement catches up at its next one or on reconnection.
 * Not awaited by callers on hot paths.
 *
 * Announcements made within ANNOUNCE_WINDOW_MS of each other (judges reporting at once, a bulk rejudge's
 * batch) go to Redis together, in one pipeline of EVALSHA calls: each send to Redis wakes it, and on a
 * virtual machine waking a process on another core is the dearest part of a round trip (a send per
 * judge call was a tenth of the API's CPU). A stream hears of a change at most that much later. The
 * batch still pending when the job client closes is sent first (JobClient.beforeClose).
 */
export function announceRecordChange(
  jobs: JobClient,
  logger: Logger,
  domainId: string,
  ...recordIds: string[]
): Promise<void> {
  if (recordIds.length === 0) return Promise.resolve();
  let batch = batches.get(jobs);
  if (!batch) {
    const started: Batch = {
      changes: [],
      logger,
      done: Promise.withResolvers(),
      timer: setTimeout(() => flush(jobs), ANNOUNCE_WINDOW_MS),
    };
    batches.set(jobs, started);
    if (!flushing.has(jobs)) {
      flushing.add(jobs);
      jobs.beforeClose(() => flush(jobs));
    }
    batch = started;
  }
  for (const recordId of recordIds) batch.changes.push([domainId, recordId]);
  return batch.done.promise;
}

/** Sends the pending announcements (after the window, or at once when the job client closes). */
function flush(jobs: JobClient): Promise<void> {
  const batch = batches.get(jobs);
  if (!batch) return Promise.resolve();
  batches.delete(jobs);
  clearTimeout(batch.timer);
  void send(jobs, batch.logger, batch.changes).finally(() => batch.done.resolve());
  return batch.done.promise;
}

interface Batch {
  changes: [domainId: string, recordId: string][];
  logger: Logger;
  done: ReturnType<typeof Promise.withResolvers<void>>;
  timer: ReturnType<typeof setTimeout>;
}

const batches = new WeakMap<JobClient, Batch>();
const flushing = new WeakSet<JobClient>();

type Announcing = Redis & {
  announceRecord(log: string, channel: string, length: number, domainId: string, recordId: string): Promise<string>;
};

async function send(jobs: JobClient, logger: Logger, changes: Batch["changes"]): Promise<void> {
  try {
    const redis = await jobs.commands();
    // ioredis sends EVALSHA, and the script itself only when Redis does not know it yet.
    if (!("announceRecord" in redis)) redis.defineCommand("announceRecord", { numberOfKeys: 2, lua: ANNOUNCE });
    const announcing = redis as Announcing;
    const channel = channelOf(jobs.queuePrefix);
    if (changes.length === 1) {
      const [[domainId, recordId]] = changes;
      await announcing.announceRecord(logOf(jobs.queuePrefix, domainId), channel, LOG_LENGTH, domainId, recordId);
      return;
    }
    const pipeline = announcing.pipeline() as unknown as Announcing & { exec(): Promise<unknown> };
    for (const [domainId, recordId] of changes) {
      pipeline.announceRecord(logOf(jobs.queuePrefix, domainId), channel, LOG_LENGTH, domainId, recordId);
    }
    await pipeline.exec();
  } catch (error) {
    logger.warn("record change not announced to live streams", { records: changes.length, error });
  }
}

export interface Change {
  /** The log's id: the SSE event id. */
  id: string;
  domainId: string;
  recordId: string;
  /**
   * When this process heard it on the channel (`performance.now()`; not on changes read from the log): one
   * time for all its listeners, so that feeds that hear a change together can share a read begun after it.
   */
  heardAt?: number;
}

type Listener = (change: Change) => void;

/**
 * One subscriber connection per API process (and queue prefix), fanning the channel out to the
 * process's streams by domain. It connects with the first stream and stays for the process.
 */
export class RecordBus {
  private subscriber: Redis | null = null;
  private ready: Promise<void> | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly redisUrl: string,
    private readonly queuePrefix: string,
    private readonly logger: Logger,
    /** A connection for commands (a subscribed one takes none): the queues' own. */
    private readonly commands: () => Promise<Redis>,
  ) {}

  /** Starts listening for a domain's changes; the returned function stops. Rejects when Redis is down. */
  async listen(domainId: string, listener: Listener): Promise<() => void> {
    await this.connect();
    const set = this.listeners.get(domainId) ?? new Set();
    this.listeners.set(domainId, set.add(listener));
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(domainId);
    };
  }

  /** Changes after `afterId`, oldest first, or null when the log no longer reaches back that far. */
  async changesSince(domainId: string, afterId: string): Promise<Change[] | null> {
    const redis = await this.commands();
    const log = logOf(this.queuePrefix, domainId);
    try {
      // Trimmed past the client's position: what it missed is gone from the log.
      if (await trimmedPast(redis, log, afterId)) return null;
      // The whole rest of the log (at most LOG_LENGTH), page by page: stopping at a page would skip silently.
      const changes: Change[] = [];
      for (let from = `(${afterId}`; ; ) {
        const entries = await redis.xrange(log, from, "+", "COUNT", 1000);
        for (const [id, fields] of entries) changes.push({ id, domainId: fields[1], recordId: fields[3] });
        if (entries.length < 1000) return changes;
        from = `(${entries[entries.length - 1][0]}`;
      }
    } catch (error) {
      // An id Redis cannot read (out of range): the client starts over, rather than failing every reconnection.
      if (error instanceof Error && /stream ID|start ID/i.test(error.message)) return null;
      throw error;
    }
  }

  /** The newest id in the domain's log: where a fresh stream starts. */
  async lastId(domainId: string): Promise<string> {
    const redis = await this.commands();
    return (await redis.xrevrange(logOf(this.queuePrefix, domainId), "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0";
  }

  private connect(): Promise<void> {
    if (this.ready) return this.ready;
    const subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    subscriber.on("error", (error) => this.logger.debug("record bus connection error", { error: error.message }));
    subscriber.on("message", (_channel, message: string) => {
      const [id, domainId, recordId] = message.split(" ");
      const heardAt = performance.now();
      for (const listener of this.listeners.get(domainId) ?? []) listener({ id, domainId, recordId, heardAt });
    });
    this.subscriber = subscriber;
    this.ready = subscriber
      .connect()
      .then(() => subscriber.subscribe(channelOf(this.queuePrefix)))
      .then(() => {});
    this.ready.catch(() => {
      // The next stream tries again.
      this.ready = null;
      this.subscriber = null;
      subscriber.disconnect();
    });
    return this.ready;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    this.ready = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
