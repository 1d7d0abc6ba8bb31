import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Worker } from "bullmq";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { startConfigsWorker } from "../helpers/workers";
import { acceptEverything, judgeableProblem, recordRow, scriptedJudger, submit } from "../helpers/records";

interface Family {
  name: string;
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

/**
 * The Prometheus project's own parser (python3-prometheus-client, installed by .ci/run): it throws on
 * anything that is not valid text exposition format.
 */
function parsePrometheus(text: string): Family[] {
  const parser = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = [{"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
       for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(out))`;
  const run = Bun.spawnSync(["/usr/bin/python3", "-c", parser], { stdin: Buffer.from(text) });
  if (run.exitCode !== 0) throw new Error(`not Prometheus text format: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString());
}

const TOKEN = "metrics-token-0123456789abcdef";
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let housekeeper: Worker;
beforeAll(async () => {
  // 127.0.0.1 is a trusted proxy here, so X-Forwarded-For makes a request come from elsewhere.
  t = await spawnApp({
    METRICS_TOKEN: TOKEN,
    TRUSTED_PROXIES: "127.0.0.1/32",
    JUDGE_LEASE_SECONDS: "1",
    JUDGE_MAX_ATTEMPTS: "2",
  });
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  housekeeper = await startConfigsWorker(t);
});
afterAll(async () => {
  await housekeeper.close();
  await t.close();
});

const scrapeRaw = (headers: Record<string, string> = {}) =>
  t.app.handle(new Request("http://localhost/metrics", { headers }));

/** The metrics as a Prometheus text parser reads them. */
async function scrape(): Promise<Family[]> {
  const response = await scrapeRaw();
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parsePrometheus(await response.text());
}

/** The value of one sample (0 when absent), by sample name (`…_count` of a histogram): the labels given must all match. */
function sampleValue(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const samples = families.flatMap((f) => f.samples).filter((s) => s.name === name);
  return samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
}

const until = async (id: string, state: string) => {
  for (let i = 0; i < 400 && (await recordRow(t, id)).state !== state; i++) await Bun.sleep(25);
  return recordRow(t, id);
};

describe("GET /metrics", () => {
  test("who may scrape: loopback freely; elsewhere only with the bearer token, compared exactly", async () => {
    expect((await scrapeRaw()).status).toBe(200);
    const remote = { "x-forwarded-for": "203.0.113.7" };
    expect((await scrapeRaw(remote)).status).toBe(401);
    expect((await scrapeRaw(remote)).headers.get("www-authenticate")).toContain("Bearer");
    expect((await scrapeRaw({ ...remote, authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await scrapeRaw({ ...remote, authorization: `Bearer ${TOKEN.slice(0, -1)}` })).status).toBe(401);
    expect((await scrapeRaw({ ...remote, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    // A spoofed loopback hop on the left is the client's own writing, not a proxy's.
    expect((await scrapeRaw({ "x-forwarded-for": "127.0.0.1, 203.0.113.7" })).status).toBe(401);
  });

  test("without METRICS_TOKEN only loopback is served", async () => {
    const closed = await spawnApp({ TRUSTED_PROXIES: "127.0.0.1/32" });
    try {
      const remote = await closed.app.handle(
        new Request("http://localhost/metrics", {
          headers: { "x-forwarded-for": "198.51.100.1", authorization: "Bearer anything-at-all-here" },
        }),
      );
      expect(remote.status).toBe(403);
      expect(await remote.text()).toContain("METRICS_TOKEN");
      expect((await closed.app.handle(new Request("http://localhost/metrics"))).status).toBe(200);
    } finally {
      await closed.close();
    }
  });

  test("a submission's path: request counts by route, the queue, the records waiting, the claim, the verdicts", async () => {
    const problem = await judgeableProblem(t, cast, { categories: ["pretest", "pretest", "pretest"] });
    const before = await scrape();
    const submitted = await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`);
    expect(submitted.body.errorCode).toBe("Success");
    const id = submitted.body.data.id as string;

    const waiting = await scrape();
    const submitRoute = { method: "POST", route: "/api/v1/domains/:domain/problems/:problem", status: "200" };
    expect(sampleValue(waiting, "joj_http_requests_total", submitRoute)).toBe(
      sampleValue(before, "joj_http_requests_total", submitRoute) + 1,
    );
    expect(sampleValue(waiting, "joj_http_request_duration_seconds_count", submitRoute)).toBeGreaterThan(0);
    expect(sampleValue(waiting, "joj_submissions_total")).toBe(sampleValue(before, "joj_submissions_total") + 1);
    expect(sampleValue(waiting, "joj_queue_jobs", { queue: "judge", state: "waiting" })).toBe(1);
    expect(sampleValue(waiting, "joj_records_in_state", { state: "queueing" })).toBe(1);

    const worker = await scriptedJudger(t, acceptEverything(t, judger.token));
    try {
      expect((await until(id, "accepted")).state).toBe("accepted");
    } finally {
      await worker.close();
    }
    const judged = await scrape();
    expect(sampleValue(judged, "joj_judge_claims_total")).toBe(sampleValue(before, "joj_judge_claims_total") + 1);
    const accepted = { result: "accepted" };
    expect(sampleValue(judged, "joj_judge_case_verdicts_total", accepted)).toBe(
      sampleValue(before, "joj_judge_case_verdicts_total", accepted) + 3,
    );
    const final = { state: "accepted" };
    expect(sampleValue(judged, "joj_records_judged_total", final)).toBe(
      sampleValue(before, "joj_records_judged_total", final) + 1,
    );
    expect(sampleValue(judged, "joj_queue_jobs", { queue: "judge", state: "waiting" })).toBe(0);
    expect(sampleValue(judged, "joj_records_in_state", { state: "queueing" })).toBe(0);
    // Route templates, never ids: the record's id appears in no label.
    const text = await (await scrapeRaw()).text();
    expect(text).not.toContain(id);
    expect(judged.find((f) => f.name === "process_resident_memory_bytes")?.type).toBe("gauge");
    // The pool has served this test: it holds connections, and no query is waiting for one now.
    expect(sampleValue(judged, "joj_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(sampleValue(judged, "joj_db_pool_connections", { state: "waiting" })).toBe(0);
  });

  test("the reconciler's work, done in the configs worker, is reported by the API: a lapsed lease and a re-queue", async () => {
    const problem = await judgeableProblem(t, cast);
    const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`)).body.data;
    const { task_id: taskId } = await recordRow(t, record.id);
    const base = `/domains/${cast.domain.id}/records/${record.id}`;
    expect((await t.api.post(`${base}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Success",
    );
    const before = await scrape();
    await Bun.sleep(1100); // the 1 s lease lapses
    expect(await t.jobs.run("record.reconcile", {}, { queue: "configs", timeoutMs: 20_000 })).toMatchObject({
      requeued: 1,
    });
    const after = await scrape();
    expect(sampleValue(after, "joj_judge_lease_expiries_total")).toBe(
      sampleValue(before, "joj_judge_lease_expiries_total") + 1,
    );
    const lapsed = { reason: "lease_lapsed" };
    expect(sampleValue(after, "joj_judge_requeues_total", lapsed)).toBe(
      sampleValue(before, "joj_judge_requeues_total", lapsed) + 1,
    );
    const requeued = { action: "requeued" };
    expect(sampleValue(after, "joj_reconciler_actions_total", requeued)).toBe(
      sampleValue(before, "joj_reconciler_actions_total", requeued) + 1,
    );
    expect(sampleValue(after, "joj_records_in_state", { state: "queueing" })).toBe(1);
  });

  test("a scrape with Redis unreachable still answers, without the Redis gauges, and counts the failure", async () => {
    const cut = await spawnApp({ REDIS_URL: "redis://127.0.0.1:1" });
    try {
      const response = await cut.app.handle(new Request("http://localhost/metrics"));
      expect(response.status).toBe(200);
      const families = parsePrometheus(await response.text());
      expect(sampleValue(families, "joj_metrics_scrape_errors_total", { source: "redis" })).toBeGreaterThan(0);
      expect(sampleValue(families, "joj_records_in_state", { state: "queueing" })).toBe(0);
    } finally {
      await cut.close();
    }
  });
});
