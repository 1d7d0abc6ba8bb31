import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import type { AppDeps } from "../../http/app-deps";
import { QUEUE_NAMES } from "../../jobs/catalogue";
import * as metrics from "../../runtime/metrics";
import { clientIp, isLoopback } from "../../http/client-ip";
import { withTimeout } from "../../core/timeout";
import { WAITING_STATES, WORKING_STATES } from "../judging/record-states";
import { poolUse } from "../../db/orm";
import { recordsInStatesSql } from "./metrics.sql";

/** States a record waits or is judged in: the gauges an operator watches (final states are counters). */
const OPEN_STATES = [...WAITING_STATES, ...WORKING_STATES];
const RECORDS_IN_STATES_SQL = recordsInStatesSql(OPEN_STATES.length);
const QUEUE_STATES = ["waiting", "prioritized", "active", "delayed", "failed"] as const;
const SCRAPE_TIMEOUT_MS = 2_000;

function tokenMatches(header: string | null, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim() ?? "");
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** A gauge's source that does not answer in time is left out of the scrape. */
const inTime = <T>(work: Promise<T>) => withTimeout(work, SCRAPE_TIMEOUT_MS);

/**
 * Reads the gauges of shared state just before a scrape. A source that is down leaves its gauges out
 * (and counts a scrape error) rather than failing the scrape: an outage is when metrics matter most.
 */
async function refreshGauges(deps: AppDeps): Promise<void> {
  // The pool first: the scrape's own query below would count in it.
  const poolFailure = await poolUse(deps.orm).then(
    (use) => {
      for (const [state, n] of Object.entries(use)) metrics.dbPool.set({ state }, n);
      return null;
    },
    (error: unknown) => error,
  );
  const queues = QUEUE_NAMES.map(async (name) => {
    const counts = await inTime(deps.jobs.queues[name].getJobCounts(...QUEUE_STATES));
    for (const state of QUEUE_STATES) metrics.queueJobs.set({ queue: name, state }, counts[state] ?? 0);
  });
  // Open states only: the (state, …) index answers this at any size; a count of final states would scan.
  const records = inTime(
    deps.orm.em.getConnection().execute<{ state: string; n: string }[]>(RECORDS_IN_STATES_SQL, OPEN_STATES),
  ).then((rows) => {
    const byState = new Map(rows.map((r) => [r.state, Number(r.n)]));
    for (const state of OPEN_STATES) metrics.recordsInState.set({ state }, byState.get(state) ?? 0);
  });
  // The queues' own connection, as the workers write the hash through theirs (no key prefix on either).
  const redis = deps.jobs.commands();
  const shared = inTime(redis.then((r) => r.hgetall(metrics.sharedCountersKey(deps.config.queuePrefix)))).then((hash) =>
    metrics.applySharedCounters(hash),
  );
  const results = await Promise.allSettled([
    Promise.all(queues),
    records,
    shared,
    poolFailure === null ? Promise.resolve() : Promise.reject(poolFailure),
  ]);
  // A gauge whose source did not answer is left out, not shown with the last scrape's figures.
  const failed: [string, () => void][] = [
    ["redis", () => metrics.queueJobs.reset()],
    ["postgres", () => metrics.recordsInState.reset()],
    ["redis", () => {}],
    ["postgres", () => metrics.dbPool.reset()],
  ];
  results.forEach((result, i) => {
    if (result.status === "fulfilled") return;
    metrics.scrapeErrors.inc({ source: failed[i][0] });
    failed[i][1]();
  });
}

/**
 * `GET /metrics` (outside /api/v1, like the health routes), in Prometheus' text format. Loopback callers
 * (a Prometheus beside the API, an operator on the machine) need nothing; any other caller needs
 * `Authorization: Bearer $METRICS_TOKEN`, and without that setting nobody else gets in. The caller is
 * the address `clientIp` resolves, so a request relayed by a trusted proxy on loopback is not loopback.
 */
export function metricsRoutes(deps: AppDeps) {
  const { config } = deps;
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async ({ request, server, set }) => {
      const caller = clientIp(request, server, config.trustedProxies);
      if (!isLoopback(caller)) {
        if (!config.metricsToken) {
          set.status = 403;
          return "metrics are served to loopback only: set METRICS_TOKEN to allow scrapes from elsewhere\n";
        }
        if (!tokenMatches(request.headers.get("authorization"), config.metricsToken)) {
          set.status = 401;
          set.headers["www-authenticate"] = 'Bearer realm="metrics"';
          return "a valid Authorization: Bearer token is required\n";
        }
      }
      await refreshGauges(deps);
      set.headers["content-type"] = metrics.registry.contentType;
      set.headers["cache-control"] = "no-store";
      return metrics.registry.metrics();
    },
    { detail: { hide: true } },
  );
}
