import { Elysia, t } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../server/deps";
import type { JobClient } from "../../jobs/job-client";
import { authPlugin } from "../identity/http/auth.plugin";
import { ServiceError } from "../../core/errors";
import { findReadableRecord } from "../records/records.service";
import { DomainParams } from "../domains/domains.schemas";
import { RecordParams } from "../records/records.schemas";
import { RecordBus } from "./record-events.bus";
import { isStreamId } from "./record-events.log";
import { watchList, watchRecord, type Sink, type StreamDeps } from "./record-events.service";

const ListStreamQuery = t.Object({
  problemSet: t.Optional(t.String({ format: "uuid", description: "problem set id" })),
  problem: t.Optional(t.String({ format: "uuid", description: "problem id" })),
  submitterId: t.Optional(t.String({ format: "uuid", description: "submitter uid" })),
});

const SSE_DOC = (what: string) => ({
  200: {
    description: `text/event-stream: ${what}`,
    content: { "text/event-stream": { schema: { type: "string" as const } } },
  },
});

interface Live {
  bus: RecordBus;
  streams: Set<() => void>;
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
 * Live record updates as Server-Sent Events (extension). Each stream holds one of the user's
 * `LIVE_STREAMS_PER_USER` slots, sends a comment every `LIVE_HEARTBEAT_SECONDS` (proxies close silent
 * connections; the heartbeat also keeps the slot), and is ended by the server on shutdown.
 */
export function recordEventsRoutes(deps: AppDeps) {
  const { config, logger } = deps;
  const { maxPerUser, heartbeatSeconds } = config.liveStreams;
  const bus = new RecordBus(config.redisUrl, config.queuePrefix, logger, () => deps.jobs.commands());
  const live: Live = { bus, streams: new Set() };
  lives.set(deps.jobs, live);
  const streamDeps = (domainId: string): StreamDeps => ({
    bus: live.bus,
    fork: () => deps.orm.em.fork(),
    store: deps.store,
    codeUrl: (id) => `${config.publicUrl}/api/v1/domains/${domainId}/records/${id}/code`,
  });
  const staleMs = heartbeatSeconds * 3000;

  /** The SSE response; `start` subscribes and returns how to stop. Refused with 429 when the user's slots are taken. */
  async function open(
    userId: string,
    request: Request,
    server: { timeout(request: Request, seconds: number): void } | null,
    start: (sink: Sink, fail: (error: unknown) => void) => Promise<() => void>,
  ): Promise<Response> {
    const streamId = randomUUID();
    if (!(await live.bus.takeSlot(userId, streamId, maxPerUser, staleMs))) {
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
        const sink: Sink = {
          send: (event, data, id) => write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
          position: (id) => write(`id: ${id}\n\n`),
          end: () => close(),
        };
        const heartbeat = setInterval(() => {
          write(": heartbeat\n\n");
          live.bus.keepSlot(userId, streamId, staleMs).catch(() => {});
        }, heartbeatSeconds * 1000);
        let stop = () => {};
        close = () => {
          if (closed) return;
          closed = true;
          clearInterval(heartbeat);
          stop();
          live.streams.delete(close);
          live.bus.freeSlot(userId, streamId).catch(() => {});
          try {
            controller.close();
          } catch {
            // the client went first
          }
        };
        live.streams.add(close);
        request.signal.addEventListener("abort", () => close());
        // Tells EventSource how long to wait before reconnecting.
        write(`retry: 3000\n\n`);
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
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  const lastEventId = (request: Request) => {
    const id = request.headers.get("last-event-id")?.trim() ?? "";
    return isStreamId(id) ? id : null;
  };

  return new Elysia({ name: "record-events-routes", prefix: "/domains/:domain", detail: { tags: ["record"] } })
    .use(authPlugin(deps))
    .get(
      "/records/events",
      ({ access, query, request, server }) =>
        open(access.userId, request, server, (sink, fail) =>
          watchList(
            streamDeps(access.domainId),
            access.userId,
            access.domainId,
            query,
            lastEventId(request),
            sink,
            fail,
          ),
        ),
      {
        domainVisible: true,
        params: DomainParams,
        query: ListStreamQuery,
        detail: {
          operationId: "v1_stream_records_in_domain",
          summary: "Live changes to the records list the caller may see, as Server-Sent Events (extension)",
          responses: SSE_DOC(
            "`record` events carrying list rows, `run` events with the caller's own runs; `reset` when Last-Event-ID is too old",
          ),
        },
      },
    )
    .get(
      "/records/:record/events",
      async ({ em, access, params, request, server }) => {
        // A record that is not there, or not the caller's to read, is refused as GET refuses it, not streamed.
        const record = await findReadableRecord(em, access, params.record);
        return open(access.userId, request, server, (sink, fail) =>
          watchRecord(streamDeps(access.domainId), access.userId, access.domainId, record.id, sink, fail),
        );
      },
      {
        domainVisible: true,
        params: RecordParams,
        detail: {
          operationId: "v1_stream_record",
          summary:
            "One record's state, totals and cases as they are judged, as Server-Sent Events; ends when final " +
            "(extension)",
          responses: SSE_DOC("`record`, `case` and finally `end` events"),
        },
      },
    );
}
