import { heapStats } from "bun:jsc";
import { writeFileSync } from "node:fs";

/**
 * Preloaded into the API by `HEAP=1 bun run bench:streams` (never otherwise): on SIGUSR2 the API writes its
 * memory as the bench's phases leave it to /tmp/joj-streams-heap-<pid>-<n>.json: the RSS and the JS heap before
 * and after a full collection (what is garbage, what is live) and the live objects' commonest types. The
 * bench prints the difference: where the RSS over idle goes.
 */
let taken = 0;
const top = (stats: ReturnType<typeof heapStats>) =>
  Object.entries(stats.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15);
process.on("SIGUSR2", () => {
  const seen = heapStats();
  const before = { ...process.memoryUsage(), heap: seen.heapSize, objects: seen.objectCount, types: top(seen) };
  Bun.gc(true);
  const stats = heapStats();
  const after = { ...process.memoryUsage(), heap: stats.heapSize, objects: stats.objectCount, types: top(stats) };
  // HEAP_SNAPSHOT=1: the whole heap too (V8's format, for Chrome's memory tab or a script).
  if (process.env.HEAP_SNAPSHOT === "1")
    writeFileSync(`/tmp/joj-streams-heap-${process.pid}-${taken}.heapsnapshot`, Bun.generateHeapSnapshot("v8"));
  writeFileSync(`/tmp/joj-streams-heap-${process.pid}-${taken++}.json`, JSON.stringify({ before, after }));
});
