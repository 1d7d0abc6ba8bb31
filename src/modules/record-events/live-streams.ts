import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../http/app-deps";
import type { JobClient } from "../../jobs/job-client";
import { ServiceError } from "../../core/errors";
import * as metrics from "../../runtime/metrics";
import { RecordBus } from "./record-events.bus";
import type { Sink } from "./record-events.service";
import { StreamSlots } from "./stream-slots";
import { Output } from "./stream-output";

type HttpServer = { timeout(request: Request, seconds: number): void } | null;

interface Live {
  bus: RecordBus;
  streams: Set<() => void>;
  open(
    format: "sse" | "ndjson",
    userId: string,
    request: Request,
    server: HttpServer,
    start: (sink: Sink, fail: (error: unknown) => void) => Promise<() => void>,
  ): Promise<Response>;
}

/** Per app (keyed by its job client): the bus and the open streams, so shutdown can end them first. */
const lives = new Map<JobClient, Live>();

/**
 * Ends every live stream of the app and drops its subscription. Run before the HTTP server stops: an
 * open stream would otherwise hold the graceful shutdown until its timeout. Clients reconnect (to
 * another process) with `Last-Event-ID`.
 */
export async function closeLiveStreams(jobs: JobClient): Promise<void> {
  const live = lives.get(jobs);
  if (!live) return;
  lives.delete(jobs);
  for (const close of [...live.streams]) close();
  await live.bus.close();
}

/**
 * The app's live streams, shared by the record streams (Server-Sent Events) and the Contest API's event feed
 * (NDJSON): one subscription to the record bus per app, each stream holding a slot of its user's, of its
 * process's and of the site's (docs/operations.md "Live streams"), with a heartbeat every
 * `LIVE_HEARTBEAT_SECONDS` (proxies close silent connections; the heartbeat also keeps the slots), ended by the
 * server on shutdown, and dropped when its client leaves more than `LIVE_STREAM_QUEUE_KB` unread.
 */
export function liveStreams(deps: AppDeps) {
  const found = lives.get(deps.jobs);
  if (found) return found;
  const { config, logger } = deps;
  const limits = config.liveStreams;
  const bus = new RecordBus(config.redisUrl, config.queuePrefix, logger, () => deps.jobs.commands());
  const slots = new StreamSlots(() => deps.jobs.commands(), config.queuePrefix, limits.heartbeatSeconds * 3000);
  const streams = new Set<() => void>();
  const encoder = new TextEncoder();
  // Counted before the Redis slots are asked for, so that opens at once cannot all pass the process's cap.
  let held = 0;

  const refuse = (cap: "user" | "process" | "site") => {
    metrics.liveStreamsRefused.inc({ cap });
    const why = {
      user: `at most ${limits.maxPerUser} live streams per user: close one first`,
      process: `at most ${limits.maxPerProcess} live streams per API process: try again later`,
      site: `at most ${limits.maxPerSite} live streams on this site: try again later`,
    }[cap];
    return new ServiceError(429, why, limits.heartbeatSeconds * 3);
  };

  /** Takes the stream's three slots, or none (429). */
  async function reserve(userId: string, streamId: string): Promise<void> {
    if (held >= limits.maxPerProcess) throw refuse("process");
    held++;
    try {
      const refusal = await slots.take(userId, streamId, limits.maxPerUser, limits.maxPerSite);
      if (refusal) throw refuse(refusal);
    } catch (error) {
      held--;
      throw error;
    }
    metrics.liveStreamsOpen.inc();
  }

  /** The response; `start` subscribes and returns how to stop. Refused with 429 when a cap is reached. */
  async function open(
    format: "sse" | "ndjson",
    userId: string,
    request: Request,
    server: HttpServer,
    start: (sink: Sink, fail: (error: unknown) => void) => Promise<() => void>,
  ): Promise<Response> {
    const streamId = randomUUID();
    await reserve(userId, streamId);
    // The stream lives as long as the client keeps it: Bun's idle timeout would cut it between events.
    server?.timeout(request, 0);
    const output = new Output(limits, (dropped) => close(dropped));
    const put = (chunk: Uint8Array) => {
      if (output.overflows(chunk.byteLength)) close(true);
      else output.enqueue(chunk);
      return output.room();
    };
    const write = (text: string) => put(encoder.encode(text));
    const sink: Sink =
      format === "sse"
        ? {
            send: (event, data, id) => write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
            position: (id) => void write(`id: ${id}\n\n`),
            write: put,
            end: () => close(),
          }
        : // One JSON line a notification (the event and id are in it); a bare newline keeps the line alive.
          {
            send: (_event, data) => write(`${JSON.stringify(data)}\n`),
            write: put,
            position: () => {},
            end: () => close(),
          };
    const heartbeat = setInterval(() => {
      void write(format === "sse" ? ": heartbeat\n\n" : "\n");
      slots.keep(userId, streamId).catch(() => {});
    }, limits.heartbeatSeconds * 1000);
    let stop = () => {};
    const close = (dropped = false) => {
      if (output.closed) return;
      clearInterval(heartbeat);
      stop();
      streams.delete(close);
      held--;
      metrics.liveStreamsOpen.dec();
      slots.free(userId, streamId).catch(() => {});
      if (dropped) {
        metrics.liveStreamsDropped.inc({ reason: "slow_reader" });
        logger.warn("live stream dropped: its client does not read", { userId, format });
        // A connection that does not drain is closed by Bun's idle timer; erroring discards what is queued.
        server?.timeout(request, 1);
      }
      output.close(dropped);
    };
    streams.add(close);
    request.signal.addEventListener("abort", () => close());
    if (request.signal.aborted) close();
    // Tells EventSource how long to wait before reconnecting.
    if (format === "sse") void write(`retry: 3000\n\n`);
    // Not awaited: a first burst that waits for the client to read must not hold the response back.
    void start(sink, (error) => {
      logger.error("live stream failed", { error });
      close();
    }).then(
      (stopping) => {
        stop = stopping;
        if (output.closed) stop();
      },
      (error) => {
        logger.warn("live stream could not start", { error });
        close();
      },
    );
    const type = format === "sse" ? "text/event-stream; charset=utf-8" : "application/x-ndjson";
    return new Response(output.body, {
      headers: { "content-type": type, "cache-control": "no-store", "x-accel-buffering": "no" },
    });
  }

  const live: Live = { bus, streams, open };
  lives.set(deps.jobs, live);
  return live;
}
