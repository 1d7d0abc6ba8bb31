import { connect, type Socket } from "node:net";
import { readFile } from "node:fs/promises";

/** `bench:streams`'s clients, all in the bench's process: Contest API feeds, a judger over HTTP, the sampler. */

/** A feed read as it comes: its NDJSON lines counted, the judgements finished since `mark()` kept by id. */
export interface ReadingFeed {
  status: number;
  lines: number;
  judged: Set<string>;
  mark(): void;
  close(): void;
}

export async function readingFeed(url: string, authorization: string): Promise<ReadingFeed> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization }, signal: abort.signal });
  const feed: ReadingFeed = {
    status: response.status,
    lines: 0,
    judged: new Set(),
    mark: () => feed.judged.clear(),
    close: () => abort.abort(),
  };
  if (response.status !== 200) {
    await response.arrayBuffer();
    return feed;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let text = "";
    try {
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk, { stream: true });
        for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
          const line = text.slice(0, nl);
          text = text.slice(nl + 1);
          if (!line) continue;
          feed.lines++;
          const n = JSON.parse(line) as { type: string; id: string; data: { end_time?: string | null } | null };
          if (n.type === "judgements" && n.data?.end_time) feed.judged.add(n.id);
        }
      }
    } catch {
      // closed by the bench, or dropped by the server
    }
  })();
  return feed;
}

/**
 * A feed whose client never reads: a raw socket paused after the response's first bytes, as a client that
 * stalls (a laptop closed, a reader stuck) leaves it. Its status is read from those first bytes.
 */
export function stalledFeed(url: string, authorization: string): Promise<{ status: number; close(): void }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\n\r\n`);
    });
    socket.on("error", () => {});
    socket.once("data", (first: Buffer) => {
      socket.pause();
      resolve({ status: Number(first.toString("latin1").split(" ")[1]), close: () => socket.destroy() });
    });
    socket.once("close", () => reject(new Error("the stalled feed's connection closed before answering")));
  });
}

/**
 * A judger over the HTTP protocol (docs/api.md "The judge protocol"): `loops` at once take tasks from
 * `next_task`, claim, report `cases` cases and the record, until `count` records are judged. `verdict` says
 * each record's, so that a rejudge changes what the feeds show.
 */
export async function judgeAll(
  base: string,
  authorization: string,
  count: number,
  cases: number,
  loops: number,
  verdict: (recordId: string) => "accepted" | "wrong_answer",
): Promise<{ refused: number }> {
  let done = 0;
  let refused = 0;
  const call = async (method: "POST" | "PUT", path: string, body: object) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { errorCode: string; data: unknown };
    if (answer.errorCode !== "Success") refused++;
    return answer;
  };
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (done < count) {
        const task = (await call("POST", "/judge/next_task", { waitSeconds: 1 })).data as {
          recordId: string;
          domainId: string;
          taskId: string;
        } | null;
        if (!task) continue;
        const record = `/domains/${task.domainId}/records/${task.recordId}`;
        if ((await call("POST", `${record}/judge/claim`, { taskId: task.taskId })).errorCode !== "Success") continue;
        const state = verdict(task.recordId);
        for (let i = 0; i < cases; i++) {
          const passed = state === "accepted" || i < cases - 1;
          const report = { state: passed ? "accepted" : "wrong_answer", score: passed ? 10 : 0, timeMs: 5 + i };
          await call("PUT", `${record}/cases/${i}/judge`, { ...report, memoryKb: 1024, taskId: task.taskId });
        }
        await call("PUT", `${record}/judge`, { state: state === "accepted" ? "accepted" : "rejected" });
        done++;
      }
    }),
  );
  return { refused };
}

/** A process's resident set (bytes), from /proc (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** Samples a process's RSS every 50 ms until stopped: the peak. */
export function sampleRss(pid: number) {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await rssOf(pid).catch(() => 0));
      await Bun.sleep(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak;
    },
  };
}

/** `GET url` one at a time while `busy()` holds (and at least `least` times): each time in ms, sorted. */
export async function timedGets(url: string, authorization: string, busy: () => boolean, least: number) {
  const times: number[] = [];
  let failures = 0;
  while (busy() || times.length < least) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization } });
    await response.arrayBuffer();
    if (response.status !== 200) failures++;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
  return { n: times.length, p50: at(0.5), p95: at(0.95), failures };
}

/**
 * With HEAP=1 (the API preloaded with bench/streams-heap.ts): asks the API for its memory now, and prints it
 * under `phase`: the RSS, the JS heap before and after a full collection, the commonest live object types.
 */
export async function heapOf(pid: number, phase: string): Promise<void> {
  if (process.env.HEAP !== "1") return;
  const file = `/tmp/joj-streams-heap-${pid}-${heapTaken++}.json`;
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 200 && !(await Bun.file(file).exists()); i++) await Bun.sleep(50);
  const { before, after } = JSON.parse(await readFile(file, "utf8"));
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)}`;
  const types = (at: { types: [string, number][] }) => at.types.map(([t, n]) => `${t} ${n}`).join(", ");
  console.log(
    `heap ${phase}: rss ${mib(before.rss)} -> ${mib(after.rss)} MiB, heap ${mib(before.heap)} -> ${mib(after.heap)}` +
      `, external ${mib(before.external)} -> ${mib(after.external)}, arrayBuffers ${mib(after.arrayBuffers)}` +
      `, objects ${before.objects} -> ${after.objects}; before: ${types(before)}; after: ${types(after)}`,
  );
}
let heapTaken = 0;
