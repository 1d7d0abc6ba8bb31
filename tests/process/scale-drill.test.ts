import { expect, test } from "bun:test";
import { runDrill } from "../../bench/drill/run-drill";

// The CI-sized deadline drill (`bun run drill:scale` is the full one, docs/operations.md "Scaling out"):
// 2 APIs, 3 judges (one over HTTP), 2 configs workers and 24 students submitting through both APIs while
// their live streams are open, a judge killed with SIGKILL mid-record and an API restarted with SIGTERM.
// Every acknowledged submission is judged once, every stream sees every change it may see (resuming
// with Last-Event-ID across the restart), limits count across the APIs, the boards agree, a similarity
// report asked for through both APIs at once is made once, so is a package import, and nothing answers a 5xx but a draining 503.
// No record is judged to the end twice or ends `failed`, no stream ends in a server error, and the processes
// stay within the connections docs/operations.md gives them.
test("the deadline drill at CI size holds every promise", async () => {
  const result = await runDrill({
    apis: 2,
    queueJudges: 2,
    httpJudges: 1,
    workers: 2,
    students: 24,
    each: 1,
    chaos: true,
  });
  expect({
    acknowledged: result.acknowledged,
    judged: result.judged,
    duplicates: result.duplicates,
    lost: result.lost,
    failed: result.failures,
    judgedTwice: result.judgedTwice,
    streamErrors: result.streamErrors,
    apiErrors: result.apiErrors,
    eventsSeen: result.eventsSeen,
    resets: result.resets,
    limitAccepted: result.limitAccepted,
    boardsEqual: result.boardsEqual,
    similarityReports: result.similarityReports,
    serverErrors: result.serverErrors,
    imported: result.imported,
  }).toEqual({
    acknowledged: 24,
    judged: 24,
    duplicates: 0,
    lost: 0,
    failed: [],
    judgedTwice: 0,
    streamErrors: 0,
    apiErrors: [],
    eventsSeen: result.eventsExpected,
    resets: 0,
    limitAccepted: 6,
    boardsEqual: true,
    similarityReports: 1,
    serverErrors: 0,
    // One package sent through both APIs at once under one url: one import, unpacked once.
    imported: { accepted: 1, problems: 1, versions: 1 },
  });
  // 24 students' own streams and two TAs' (one per API), each seeing its records' final states.
  expect(result.eventsExpected).toBe(24 + 2 * 24);
  // Two APIs (10 + 10 each at most) and two configs workers (4 + 4): docs/operations.md "Connections".
  expect(result.pgConnectionsPeak).toBeGreaterThan(0);
  expect(result.pgConnectionsPeak).toBeLessThanOrEqual(2 * 20 + 2 * 8);
}, 240_000);
