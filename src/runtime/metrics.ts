import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus metrics (served on `/metrics`, src/http/metrics.routes.ts). Services count
 * what happens here, framework-free; gauges that describe shared state (queues, records waiting) are
 * read from Redis and PostgreSQL when scraped, so every API process reports the same figures for them.
 * Names follow Prometheus' conventions: `_total` counters, base units (seconds, bytes).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const registers = [registry];

export const httpRequests = new Counter({
  name: "joj_http_requests_total",
  help: "HTTP requests answered, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: "joj_http_request_duration_seconds",
  help: "Time from the request's arrival to its answer, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const submissions = new Counter({
  name: "joj_submissions_total",
  help: "Records created by submissions",
  registers,
});

/** Runs (docs/api.md "Runs"): counted, never audited or recorded. */
export const runs = new Counter({
  name: "joj_runs_total",
  help: "Runs started on a user's own input or on the samples, by mode",
  labelNames: ["mode"] as const,
  registers,
});

export const liveListBursts = new Counter({
  name: "joj_live_list_bursts_total",
  help: "Bursts of record changes a live list stream handled: read (its standing and rows), or skipped (none its own)",
  labelNames: ["outcome"] as const,
  registers,
});

/** Live streams (records' events, Contest API feeds) of this process: docs/operations.md "Live streams". */
export const liveStreamsOpen = new Gauge({
  name: "joj_live_streams_open",
  help: "Live streams this API process holds open",
  registers,
});

export const liveStreamsRefused = new Counter({
  name: "joj_live_streams_refused_total",
  help: "Live streams refused with 429, by the cap that was full: user, process or site",
  labelNames: ["cap"] as const,
  registers,
});

export const liveStreamsDropped = new Counter({
  name: "joj_live_streams_dropped_total",
  help: "Live streams the server ended because their client did not read what was sent (slow_reader)",
  labelNames: ["reason"] as const,
  registers,
});

export const recordsJudged = new Counter({
  name: "joj_records_judged_total",
  help: "Records that reached a final state on a judger's report, by state",
  labelNames: ["state"] as const,
  registers,
});

export const caseVerdicts = new Counter({
  name: "joj_judge_case_verdicts_total",
  help: "Case results reported by judgers, by result",
  labelNames: ["result"] as const,
  registers,
});

export const judgeClaims = new Counter({
  name: "joj_judge_claims_total",
  help: "Tasks claimed by judgers (first claims; lease renewals are not counted)",
  registers,
});

export const leaseExpiries = new Counter({
  name: "joj_judge_lease_expiries_total",
  help: "Records whose judger's lease lapsed, found by the reconciler",
  registers,
});

/** Re-queues by the reconciler (counted in Redis) and by rejudges (counted by the API process that took them). */
export const sharedRequeues = new Counter({
  name: "joj_judge_requeues_total",
  help: "Records put back on the judge queue under a new task id by the reconciler, by reason",
  labelNames: ["reason"] as const,
  registers,
});

export const rejudges = new Counter({
  name: "joj_rejudges_total",
  help: "Records queued for judging again by a rejudge, by kind (one record or a bulk rejudge)",
  labelNames: ["kind"] as const,
  registers,
});

export const reconcilerActions = new Counter({
  name: "joj_reconciler_actions_total",
  help: "What the reconciler did, by action",
  labelNames: ["action"] as const,
  registers,
});

export const queueJobs = new Gauge({
  name: "joj_queue_jobs",
  help: "Jobs in each BullMQ queue, by state (read from Redis when scraped)",
  labelNames: ["queue", "state"] as const,
  registers,
});

export const recordsInState = new Gauge({
  name: "joj_records_in_state",
  help: "Records waiting for or under judgement, by state (read from PostgreSQL when scraped)",
  labelNames: ["state"] as const,
  registers,
});

export const dbPool = new Gauge({
  name: "joj_db_pool_connections",
  help: "The database pool's connections: total open, idle, and requests waiting for one",
  labelNames: ["state"] as const,
  registers,
});

export const scrapeErrors = new Counter({
  name: "joj_metrics_scrape_errors_total",
  help: "Gauges that could not be read when scraped (their source was down), by source",
  labelNames: ["source"] as const,
  registers,
});

/**
 * Counters of what the workers do (the reconciler runs in the configs worker, not in an API process):
 * kept in one Redis hash, so whichever API process is scraped reports them. Field `metric|label`.
 */
export const sharedCountersKey = (queuePrefix: string) => `${queuePrefix}:metrics:counters`;

interface HashIncrementer {
  hincrby(key: string, field: string, by: number): Promise<unknown>;
}

/** The reconciler's pass, counted for every API process to report (lease expiries, re-queues, its actions). */
export async function countReconcilerPass(
  redis: HashIncrementer,
  queuePrefix: string,
  report: { requeued: number; failed: number; reenqueued: number },
): Promise<void> {
  const key = sharedCountersKey(queuePrefix);
  const fields: [string, number][] = [
    ["lease_expiries|", report.requeued + report.failed],
    ["requeues|lease_lapsed", report.requeued],
    ["requeues|lost_job", report.reenqueued],
    ["reconciler|requeued", report.requeued],
    ["reconciler|failed", report.failed],
    ["reconciler|reenqueued", report.reenqueued],
    ["reconciler|passes", 1],
  ];
  await Promise.all(fields.filter(([, n]) => n > 0).map(([field, n]) => redis.hincrby(key, field, n)));
}

/** Sets the shared counters from the Redis hash (a flushed Redis restarts them, which Prometheus reads as a reset). */
export function applySharedCounters(hash: Record<string, string>): void {
  leaseExpiries.reset();
  reconcilerActions.reset();
  sharedRequeues.reset();
  for (const [field, text] of Object.entries(hash)) {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) continue;
    const [metric, label] = field.split("|");
    if (metric === "lease_expiries") leaseExpiries.inc(value);
    else if (metric === "requeues") sharedRequeues.inc({ reason: label }, value);
    else if (metric === "reconciler") reconcilerActions.inc({ action: label }, value);
  }
}
