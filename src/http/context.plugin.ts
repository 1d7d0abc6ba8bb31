import { Elysia } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "./app-deps";
import { InputError } from "../core/errors";
import { acceptBothCases, normalizeQueryBooleans } from "../core/normalize";
import { bodyLimitsOf, checkDeclaredBody } from "./body-limits";
import { assertStorableText } from "./input-hygiene";
import type { EntityManager } from "@mikro-orm/postgresql";
import * as metrics from "../runtime/metrics";

interface RequestState {
  id: string;
  startedAt: number;
  /** Forked at the start, so hooks that run before `derive` (auth in the parse phase) share it. */
  em: EntityManager;
}

// Keyed by the Request object so the error mapper can find the id even when a hook failed early.
const requestStates = new WeakMap<Request, RequestState>();

export function requestIdOf(request: Request): string {
  return requestStates.get(request)?.id ?? "unknown";
}

/** The request's EntityManager, from its first hook on. */
export function emOf(request: Request): EntityManager {
  const state = requestStates.get(request);
  if (!state) throw new Error("no request state: the context plugin did not see this request");
  return state.em;
}

/**
 * The route's template (`/api/v1/domains/:domain/records`), never the path: ids in labels would grow the
 * metrics without bound. A request no route matched (a scanner's guesses) is counted as one label.
 */
function countRequest(method: string, route: string | undefined, status: number, durationMs: number | undefined): void {
  const labels = {
    method: KNOWN_METHODS.has(method) ? method : "other",
    route: route || "unmatched",
    status: String(status),
  };
  metrics.httpRequests.inc(labels);
  if (durationMs !== undefined) metrics.httpDuration.observe(labels, durationMs / 1000);
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Per-request plumbing shared by every route: the request id (an incoming `X-Request-ID` is kept
 * when well-formed and always echoed), one forked EntityManager, the body and query normalisation
 * the JOJ clients need, and one structured access-log line per request. A declared body length over
 * the route's limit is refused here, at the very start (body-limits.ts); bodies are parsed only after
 * the route's checks (auth.plugin). An empty body (the Python client's body-less POSTs) is no body.
 */
export function contextPlugin(deps: AppDeps) {
  const { logger, orm, config } = deps;
  const limits = bodyLimitsOf(config);
  return new Elysia({ name: "context" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      requestStates.set(request, { id, startedAt: performance.now(), em: orm.em.fork() });
      set.headers["x-request-id"] = id;
      if (request.method !== "GET" && request.method !== "HEAD")
        checkDeclaredBody(request, new URL(request.url).pathname, limits);
    })
    .onTransform({ as: "global" }, (ctx) => {
      // Nothing PostgreSQL cannot store (a NUL) gets past here, wherever it hides.
      assertStorableText("path", ctx.params);
      assertStorableText("query", ctx.query);
      assertStorableText("body", ctx.body);
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
      return { em: requestStates.get(request)?.em ?? orm.em.fork(), requestId, log: logger.child({ requestId }) };
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path, route }) => {
      const state = requestStates.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const durationMs = state ? Math.round((performance.now() - state.startedAt) * 10) / 10 : undefined;
      logger.info("request", { requestId: state?.id, method: request.method, path, status, durationMs });
      countRequest(request.method, route, status, durationMs);
    });
}
