import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { findReadableRecord } from "../records/records.service";
import { DomainParams } from "../domains/domains.schemas";
import { RecordParams } from "../records/records.schemas";
import { isStreamId } from "./record-events.log";
import { watchList, watchRecord, type Sink, type StreamDeps } from "./record-events.service";
import { liveStreams } from "./live-streams";

export { closeLiveStreams } from "./live-streams";

type OpenStream = (
  userId: string,
  request: Request,
  server: { timeout(request: Request, seconds: number): void } | null,
  start: (sink: Sink, fail: (error: unknown) => void) => Promise<() => void>,
) => Promise<Response>;

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

/**
 * Live record updates as Server-Sent Events (extension). Each stream holds one of the user's
 * `LIVE_STREAMS_PER_USER` slots, sends a comment every `LIVE_HEARTBEAT_SECONDS` (proxies close silent
 * connections; the heartbeat also keeps the slot), and is ended by the server on shutdown.
 */
export function recordEventsRoutes(deps: AppDeps) {
  const { config } = deps;
  const live = liveStreams(deps);
  const streamDeps = (domainId: string): StreamDeps => ({
    bus: live.bus,
    fork: () => deps.orm.em.fork(),
    store: deps.store,
    codeUrl: (id) => `${config.publicUrl}/api/v1/domains/${domainId}/records/${id}/code`,
  });
  const open: OpenStream = (userId, request, server, start) => live.open("sse", userId, request, server, start);

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
