import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../server/deps";
import type { JobClient } from "../../jobs/job-client";
import { ServiceError } from "../../core/errors";
import { RecordBus } from "./record-events.bus";
import type { Sink } from "./record-events.service";

interface Live {
  bus: RecordBus;
  streams: Set<() => void>;
  open(
    format: "sse" | "ndjson",
    userId: string,
    request: Request,
    server: { timeout(request: Request, seconds: number): void } | null,
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
 * (NDJSON): one subscription to the record bus per app, and each stream holding one of the user's
 * `LIVE_STREAMS_PER_USER` slots, with a heartbeat every `LIVE_HEARTBEAT_SECONDS` (proxies close silent
 * connections; the heartbeat also keeps the slot), ended by the server on shutdown.
 */
export function liveStreams(deps: AppDeps) {
  const found = lives.get(deps.jobs);
  if (found) return found;
  const { config, logger } = deps;
  const { maxPerUser, heartbeatSeconds } = config.liveStreams;
  const bus = new RecordBus(config.redisUrl, config.queuePrefix, logger, () => deps.jobs.commands());
  const streams = new Set<() => void>();
  const staleMs = heartbeatSeconds * 3000;

  /** The response; `start` subscribes and returns how to stop. Refused with 429 when the user's slots are taken. */
  async function open(
    format: "sse" | "ndjson",
    userId: string,
    request: Request,
    server: { timeout(request: Request, seconds: number): void } | null,
    start: (sink: Sink, fail: (error: unknown) => void) => Promise<() => void>,
  ): Promise<Response> {
    const streamId = randomUUID();
    if (!(await bus.takeSlot(userId, streamId, maxPerUser, staleMs))) {
      throw new ServiceError(429, `at most ${maxPerUser} live streams per user: close one first`, heartbeatSeconds * 3);
    }
    // The stream lives as long as the client keeps it: Bun's idle timeout would cut it between events.
    server?.timeout(request, 0);
    const encoder = new TextEncoder();
    let close = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: async (controller) => {
        let closed = false;
        const write = (text: string) => {
          if (!closed) controller.enqueue(encoder.encode(text));
        };
        const sink: Sink =
          format === "sse"
            ? {
                send: (event, data, id) => write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
                position: (id) => write(`id: ${id}\n\n`),
                end: () => close(),
              }
            : // One JSON line a notification (the event and id are in it); a bare newline keeps the line alive.
              { send: (_event, data) => write(`${JSON.stringify(data)}\n`), position: () => {}, end: () => close() };
        const heartbeat = setInterval(() => {
          write(format === "sse" ? ": heartbeat\n\n" : "\n");
          bus.keepSlot(userId, streamId, staleMs).catch(() => {});
        }, heartbeatSeconds * 1000);
        let stop = () => {};
        close = () => {
          if (closed) return;
          closed = true;
          clearInterval(heartbeat);
          stop();
          streams.delete(close);
          bus.freeSlot(userId, streamId).catch(() => {});
          try {
            controller.close();
          } catch {
            // the client went first
          }
        };
        streams.add(close);
        request.signal.addEventListener("abort", () => close());
        // Tells EventSource how long to wait before reconnecting.
        if (format === "sse") write(`retry: 3000\n\n`);
        try {
          stop = await start(sink, (error) => {
            logger.error("live stream failed", { error });
            close();
          });
          if (closed) stop();
        } catch (error) {
          logger.warn("live stream could not start", { error });
          close();
        }
      },
      cancel: () => close(),
    });
    const type = format === "sse" ? "text/event-stream; charset=utf-8" : "application/x-ndjson";
    return new Response(body, {
      headers: { "content-type": type, "cache-control": "no-store", "x-accel-buffering": "no" },
    });
  }

  const live: Live = { bus, streams, open };
  lives.set(deps.jobs, live);
  return live;
}
