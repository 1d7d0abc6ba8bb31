import { Elysia } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../app";
import { InputError } from "../errors";
import { acceptBothCases, normalizeQueryBooleans } from "./normalize";

interface RequestState {
  id: string;
  startedAt: number;
}

// Keyed by the Request object so the error mapper can find the id even when a hook failed early.
const requestStates = new WeakMap<Request, RequestState>();

export function requestIdOf(request: Request): string {
  return requestStates.get(request)?.id ?? "unknown";
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Per-request plumbing shared by every route: the request id (an incoming `X-Request-ID` is kept
 * when well-formed and always echoed), one forked EntityManager, the body and query normalisation
 * the JOJ clients need, and one structured access-log line per request. JSON parsing stays Elysia's:
 * an empty body (the Python client's body-less POSTs) is no body, malformed JSON a PARSE error.
 */
export function contextPlugin(deps: AppDeps) {
  const { logger, orm } = deps;
  return new Elysia({ name: "context" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      requestStates.set(request, { id, startedAt: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onTransform({ as: "global" }, (ctx) => {
      if (ctx.query) {
        normalizeQueryBooleans(ctx.query as Record<string, unknown>);
        acceptBothCases(ctx.query as Record<string, unknown>, false);
      }
      const body = ctx.body;
      // Every request body of the API is an object; Elysia would silently turn `[1, 2]` into `{}`.
      if (body !== undefined && body !== null && (typeof body !== "object" || Array.isArray(body))) {
        if (!(body instanceof FormData)) throw new InputError(["body"], "value is not a valid dict", "type_error.dict");
      }
      if (body && typeof body === "object" && !(body instanceof FormData)) acceptBothCases(body, true);
    })
    .derive({ as: "global" }, ({ request }) => {
      const requestId = requestIdOf(request);
      return { em: orm.em.fork(), requestId, log: logger.child({ requestId }) };
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path }) => {
      const state = requestStates.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const durationMs = state ? Math.round((performance.now() - state.startedAt) * 10) / 10 : undefined;
      logger.info("request", { requestId: state?.id, method: request.method, path, status, durationMs });
    });
}
