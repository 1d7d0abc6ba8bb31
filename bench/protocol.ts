import { Queue, Worker } from "bullmq";
import { benchApp, fmt, report } from "./harness";
import { scriptedJudger, submit } from "../tests/helpers/records";
import { queueConnection } from "../src/jobs/catalogue";
import { enqueueJudging } from "../src/modules/judging/tasks/judge-queue";
import type { RecordJudgePayload } from "../src/jobs/catalogue";

/**
 * The judge protocol's overhead per record with a no-op judger: enqueue → claim → CASES case reports →
 * final report, all over HTTP against the real app, against the floor of BullMQ adding and completing
 * a no-op job; both clocks run from the first add to the last completion, with the same concurrency.
 *   bun bench/protocol.ts               (RECORDS=300 CASES=10 CONCURRENCY=8)
 */
const RECORDS = Number(process.env.RECORDS ?? 300);
const CASES = Number(process.env.CASES ?? 10);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);

const { t, cast, problem } = await benchApp({ CASES: String(CASES) });
try {
  // Floor: a bare queue, no-op jobs.
  const connection = queueConnection(t.config);
  const floorQueue = new Queue("floor", { connection, prefix: t.config.queuePrefix });
  let floorDone = 0;
  let floorResolve!: () => void;
  const floorFinished = new Promise<void>((resolve) => (floorResolve = resolve));
  const floorWorker = new Worker(
    "floor",
    async () => {
      if (++floorDone === RECORDS) floorResolve();
    },
    { connection, prefix: t.config.queuePrefix, concurrency: CONCURRENCY },
  );
  await floorWorker.waitUntilReady();
  const floorStart = performance.now();
  await Promise.all(Array.from({ length: RECORDS }, (_, i) => floorQueue.add("noop", { i })));
  await floorFinished;
  const floorMs = performance.now() - floorStart;
  await floorWorker.close();
  await floorQueue.close();

  // The protocol: records submitted first (timed by bench:submissions, not here) and their jobs
  // dropped; the clock starts when the jobs are enqueued, as the floor's does.
  // A judger signs every call with its access key, as the real judge does (src/judge/api/judge-api.ts).
  const created = await t.api.post(
    "/admin/judgers",
    { username: "评测机-bench", password: "pw", email: "bench@judges.example.edu" },
    { token: cast.siteRoot.token },
  );
  const { accessKeyId, secretAccessKey } = created.body.data;
  const authorization = `Basic ${Buffer.from(`${accessKeyId}:${secretAccessKey}`).toString("base64")}`;
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  for (let i = 0; i < RECORDS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, RECORDS - i) }, () => submit(t, cast.member.token, path)));
  }
  await t.jobs.queues.judge.obliterate({ force: true });
  const tasks = await t.orm.em.fork().execute<{ id: string; task_id: string }[]>("select id, task_id from records");
  let done = 0;
  let refused = 0;
  let resolveAll!: () => void;
  const allDone = new Promise<void>((resolve) => (resolveAll = resolve));
  const call = async (method: "post" | "put", url: string, body: object) => {
    const response = await t.api[method](url, body, { headers: { authorization } });
    if (response.body.errorCode !== "Success") refused++;
  };
  const worker = await scriptedJudger(
    t,
    async (job: RecordJudgePayload) => {
      const base = `/domains/${job.domainId}/records/${job.recordId}`;
      await call("post", `${base}/judge/claim`, { taskId: job.taskId });
      for (let i = 0; i < CASES; i++)
        await call("put", `${base}/cases/${i}/judge`, { state: "accepted", score: 10, timeMs: 1, memoryKb: 1024 });
      await call("put", `${base}/judge`, { state: "accepted" });
      if (++done === RECORDS) resolveAll();
    },
    CONCURRENCY,
  );
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    tasks.map((task) =>
      enqueueJudging(t.jobs, t.logger, { recordId: task.id, domainId: cast.domain.id, taskId: task.task_id }),
    ),
  );
  await allDone;
  const protocolMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // This process's CPU (judgers, queue worker and API together; PostgreSQL's and Redis's not in it).
  const cpuPerCall = (cpu.user + cpu.system) / 1000 / (RECORDS * (CASES + 2));
  await worker.close();
  const [{ n: accepted }] = await t.orm.em
    .fork()
    .execute<{ n: number }[]>("select count(*)::int as n from records where state = 'accepted'");
  const floorPer = floorMs / RECORDS;
  const protocolPer = protocolMs / RECORDS;
  report(`Judge protocol: ${RECORDS} records × ${CASES} cases, ${CONCURRENCY} judging at once`, [
    ["floor: BullMQ add→complete, no-op job", `${fmt(floorPer)} ms/record (${fmt((RECORDS / floorMs) * 1000)} /s)`],
    [
      "protocol: enqueue → claim + cases + final, HTTP",
      `${fmt(protocolPer)} ms/record (${fmt((RECORDS / protocolMs) * 1000)} /s)`,
    ],
    ["protocol cost vs floor", `${fmt(protocolPer / floorPer)}x (${fmt(protocolPer / (CASES + 2))} ms per judge call)`],
    ["CPU of this process per judge call", `${fmt(cpuPerCall)} ms (judgers, queue worker and API)`],
    ["check: accepted / refused calls", `${accepted} / ${refused}`],
  ]);
  if (accepted !== RECORDS || refused > 0) process.exitCode = 1;
} finally {
  await t.close();
}
