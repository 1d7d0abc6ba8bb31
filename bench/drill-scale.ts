import { fmt, report } from "./harness";
import { runDrill, type DrillResult, type DrillShape } from "./drill/run-drill";

/**
 * `bun run drill:scale`: the deadline drill (docs/operations.md "Scaling out"). The same class twice: once
 * against one API, one judge and one configs worker (the baseline), once against two APIs, three judges
 * (two on the queue, one over HTTP against the second API) and two configs workers, with a judge killed
 * mid-record and an API restarted. STUDENTS (300) and EACH (submissions per student, 1) size the class;
 * DRILL_S3=1 puts every API and configs worker on one S3 bucket (a local S3 server) instead of a shared disk.
 * Exits 1 when anything that must hold does not: a lost or duplicate record, a missed event, limits that
 * disagree, boards that differ, a second similarity report, a 5xx other than a draining 503.
 * The class lives in this one process: its 300 open streams need BUN_CONFIG_MAX_HTTP_REQUESTS above Bun's 256
 * (the script sets it), or every later request waits for a stream to end.
 */
const students = Number(process.env.STUDENTS ?? 300);
const each = Number(process.env.EACH ?? 1);
const baseline: DrillShape = { apis: 1, queueJudges: 1, httpJudges: 0, workers: 1, students, each, chaos: false };
const scaled: DrillShape = { apis: 2, queueJudges: 2, httpJudges: 1, workers: 2, students, each, chaos: true };

const say = (line: string) => console.log(`  · ${line}`);
console.log(`baseline: 1 API, 1 judge, 1 configs worker, ${students} students × ${each}`);
const one = await runDrill(baseline, say);
console.log(`scaled: 2 APIs, 3 judges (1 over HTTP), 2 configs workers, a judge killed, an API restarted`);
const two = await runDrill(scaled, say);

const row = (label: string, f: (r: DrillResult) => string): [string, string] => [
  label,
  `${f(one).padStart(10)}  ${f(two).padStart(10)}`,
];
report("                                          baseline      scaled", [
  row("submissions acknowledged", (r) => String(r.acknowledged)),
  row("judged to a final state", (r) => String(r.judged)),
  row("duplicates / lost", (r) => `${r.duplicates} / ${r.lost}`),
  row("ended failed", (r) => String(r.failed)),
  row("judged to the end twice", (r) => String(r.judgedTwice)),
  row("HTTP judge's records at its API's restart", (r) => String(r.heldAtRestart)),
  row("streams ended by a server error", (r) => String(r.streamErrors)),
  row("other error lines of the APIs", (r) => String(r.apiErrors.length)),
  row("PostgreSQL connections of its processes, peak", (r) => String(r.pgConnectionsPeak)),
  row("submit → final p50 / p99 (s)", (r) => `${fmt(r.p50 / 1000)} / ${fmt(r.p99 / 1000)}`),
  row("stream events expected / seen", (r) => `${r.eventsExpected} / ${r.eventsSeen}`),
  row("streams told to reset", (r) => String(r.resets)),
  row("burst of 12 over all APIs: accepted", (r) => String(r.limitAccepted)),
  row("boards equal on every API", (r) => String(r.boardsEqual)),
  row("similarity reports for 1 problem", (r) => String(r.similarityReports)),
  row("package via every API: ok/problems/configs", (r) =>
    [r.imported.accepted, r.imported.problems, r.imported.versions].join("/"),
  ),
  row("5xx other than 503 / retried", (r) => `${r.serverErrors} / ${r.retried}`),
  row("wall time (s)", (r) => fmt(r.seconds)),
]);
const per100 = (r: DrillResult, n: number) => fmt((n * 100) / Math.max(1, r.acknowledged));
report(`PostgreSQL and Redis per 100 submissions (blob store: ${two.storage})  baseline      scaled`, [
  row("PostgreSQL transactions", (r) => per100(r, r.load.pgTransactions)),
  row("PostgreSQL rows read", (r) => per100(r, r.load.pgRowsRead)),
  row("PostgreSQL rows written", (r) => per100(r, r.load.pgRowsWritten)),
  row("PostgreSQL CPU seconds", (r) => per100(r, r.load.pgCpuSeconds)),
  row("Redis commands", (r) => per100(r, r.load.redisCommands)),
  row("Redis CPU seconds", (r) => per100(r, r.load.redisCpuSeconds)),
  row("database size at the end (MB)", (r) => fmt(r.load.pgDatabaseBytes / 1e6)),
]);
for (const [name, r] of [
  ["baseline", one],
  ["scaled", two],
] as const)
  report(
    `CPU seconds per process (${name})`,
    r.cpu.map(([p, s]) => [p, fmt(s)]),
  );
for (const [name, r] of [
  ["baseline", one],
  ["scaled", two],
] as const)
  report(
    `PostgreSQL connections per process, peak (${name})`,
    r.pgConnections.map(([p, n]) => [p, String(n)]),
  );

const problems: string[] = [];
for (const [name, r] of [
  ["baseline", one],
  ["scaled", two],
] as const) {
  if (r.lost || r.duplicates || r.judged !== r.acknowledged)
    problems.push(`${name}: lost ${r.lost}, duplicates ${r.duplicates}`);
  if (r.failed) problems.push(`${name}: ${r.failed} failed: ${r.failures.slice(0, 3).join(" | ")}`);
  if (r.judgedTwice) problems.push(`${name}: ${r.judgedTwice} records judged to the end twice`);
  if (r.streamErrors) problems.push(`${name}: ${r.streamErrors} streams ended by a server error`);
  if (r.apiErrors.length) problems.push(`${name}: API error lines: ${r.apiErrors.slice(0, 3).join(" | ")}`);
  if (r.eventsSeen !== r.eventsExpected || r.resets)
    problems.push(`${name}: events ${r.eventsSeen}/${r.eventsExpected}, resets ${r.resets}`);
  if (!r.boardsEqual) problems.push(`${name}: boards differ between APIs`);
  if (r.similarityReports !== 1) problems.push(`${name}: ${r.similarityReports} similarity reports`);
  if (r.serverErrors) problems.push(`${name}: ${r.serverErrors} server errors`);
  if (r.imported.accepted !== 1 || r.imported.problems !== 1 || r.imported.versions !== 1)
    problems.push(`${name}: one package sent through every API gave ${JSON.stringify(r.imported)}`);
}
if (one.limitAccepted !== two.limitAccepted)
  problems.push(`limit decisions disagree: ${one.limitAccepted} vs ${two.limitAccepted}`);
console.log(
  problems.length
    ? `\nFAILED:\n  ${problems.join("\n  ")}`
    : "\nheld: 0 lost, 0 duplicates, 0 missed events, limits agree",
);
process.exit(problems.length ? 1 : 0);
