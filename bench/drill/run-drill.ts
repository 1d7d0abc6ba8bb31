import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../../tests/helpers/spawn-app";
import { makeCast } from "../../tests/helpers/domain-factories";
import { judgerKey, uploadConfig } from "../../tests/helpers/judging";
import { call, percentile, tally, watch, type Watch } from "./clients";
import { onLogLine, startApi, startConfigsWorker, startJudge, type Proc } from "./processes";
import { disturb, sampleConnections } from "./chaos";
import { importOnce, loadSince, snapshot, type ServiceLoad } from "./load";
import { startLocalS3, type LocalS3 } from "../../tests/helpers/s3-server";

/**
 * One drill (bench/drill-scale.ts): a class registers and submits through every API while live streams
 * are open on each, a judge is killed mid-record and an API restarted; then what must hold is counted.
 */
export interface DrillShape {
  apis: number;
  queueJudges: number;
  httpJudges: number;
  workers: number;
  students: number;
  /** Submissions per student. */
  each: number;
  /** kill -9 a judge mid-record and restart an API (SIGTERM, then start) while requests are in flight. */
  chaos: boolean;
}

export interface DrillResult {
  acknowledged: number;
  judged: number;
  duplicates: number;
  lost: number;
  failed: number;
  /** Records judged to the end by more than one judge loop (their "record judged" or "judging failed" lines). */
  judgedTwice: number;
  /** Live streams an API ended with an error ("live stream failed"), and its other error lines. */
  streamErrors: number;
  apiErrors: string[];
  /** The most connections PostgreSQL held for the drill's processes at once (pg_stat_activity, every 200 ms). */
  pgConnectionsPeak: number;
  /** Each process's own peak. */
  pgConnections: [string, number][];
  /** Records the HTTP judge held when its API was restarted (0 when there was no restart or none held). */
  heldAtRestart: number;
  /** Why each failed record failed (its first case's message). */
  failures: string[];
  p50: number;
  p99: number;
  eventsExpected: number;
  eventsSeen: number;
  resets: number;
  limitAccepted: number;
  boardsEqual: boolean;
  similarityReports: number;
  serverErrors: number;
  retried: number;
  cpu: [string, number][];
  seconds: number;
  /** PostgreSQL and Redis from the first submission to the last record judged. */
  load: ServiceLoad;
  /** A package imported through every API at once under one url: answers accepted, problems, config versions. */
  imported: { accepted: number; problems: number; versions: number };
  storage: "fs" | "s3";
}

const PROGRAM = (name: string) =>
  `/* ${name} */\n#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n`;
const CASES = 5;
const GIVEN = ["李雷", "Zoë Ñúñez", "Chloé Dupré", "Pía", "CP Ngô", "Ægir"];

async function setUp(t: TestApp) {
  const cast = await makeCast(t);
  const data: Record<string, string> = {};
  for (let i = 0; i < CASES; i++) [data[`${i}.in`], data[`${i}.out`]] = [`${i} ${i * 7}\n`, `${i * 8}\n`];
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title: "A + B" },
    { token: cast.owner.token },
  );
  const problem = created.body.data.id as string;
  const config = {
    languages: [
      {
        name: "c",
        preset: "c",
        cases: Array.from({ length: CASES }, (_, i) => ({
          executeInputFile: `${i}.in`,
          executeOutputFile: `${i}.out`,
          score: 20,
        })),
      },
    ],
  };
  await uploadConfig(t, cast, problem, config, data);
  const set = await t.api.post(
    `/domains/${cast.domain.id}/problem_sets`,
    { title: "Deadline" },
    { token: cast.admin.token },
  );
  await t.api.post(
    `/domains/${cast.domain.id}/problem_sets/${set.body.data.id}/problems`,
    { problem },
    { token: cast.admin.token },
  );
  return { cast, problem, set: set.body.data.id as string };
}

export async function runDrill(shape: DrillShape, log: (line: string) => void = () => {}): Promise<DrillResult> {
  const started = performance.now();
  tally.serverErrors = 0;
  tally.retried = 0;
  // DRILL_S3=1: every API and configs worker on one S3 bucket (the local S3 server), as on separate machines.
  const s3: LocalS3 | null = process.env.DRILL_S3 === "1" ? await startLocalS3("joj-drill") : null;
  const storageEnv: Record<string, string> = s3
    ? {
        STORAGE_DRIVER: "s3",
        S3_BUCKET: s3.bucket,
        S3_ENDPOINT: s3.endpoint,
        S3_REGION: s3.region,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      }
    : {};
  const t = await spawnApp({ LOG_LEVEL: "warn", ...storageEnv }, { configsWorker: true });
  const procs: Proc[] = [];
  const watches: Watch[] = [];
  const ends = new Map<string, number>();
  let streamErrors = 0;
  const apiErrors: string[] = [];
  onLogLine((name, line) => {
    const recordId = typeof line.recordId === "string" ? line.recordId : "";
    if (line.msg === "record judged" || line.msg === "judging failed")
      ends.set(recordId, (ends.get(recordId) ?? 0) + 1);
    if (!name.startsWith("api-") || line.level !== "error") return;
    if (line.msg === "live stream failed") streamErrors++;
    else apiErrors.push(`${name}: ${line.msg} ${JSON.stringify(line.error ?? line.err ?? "")}`.slice(0, 300));
  });
  const connections = sampleConnections(t);
  try {
    const { cast, problem, set } = await setUp(t);
    const d = cast.domain.id;
    // The APIs drain for a second after SIGTERM (docs/operations.md "Draining an API"); DRILL_DRAIN_MS to try others.
    const env = {
      RATE_SUBMISSIONS_PER_USER: "20,6",
      SHUTDOWN_DRAIN_MS: process.env.DRILL_DRAIN_MS ?? "1000",
      ...storageEnv,
    };
    const apis: (Proc & { url: string })[] = [];
    for (let i = 0; i < shape.apis; i++) apis.push((await startApi(t, `api-${i + 1}`, env)) as Proc & { url: string });
    procs.push(...apis);
    const urls = apis.map((a) => a.url);
    for (let i = 0; i < shape.workers; i++) procs.push(await startConfigsWorker(t, `configs-${i + 1}`, storageEnv));
    const judges: Proc[] = [];
    let httpJudger: string | null = null;
    for (let i = 0; i < shape.queueJudges + shape.httpJudges; i++) {
      const mode = i < shape.queueJudges ? "queue" : "http";
      // The HTTP judge names the last API alone: pinned to it, it meets that API's restart.
      const url = urls[mode === "http" ? urls.length - 1 : i % urls.length];
      const key = await judgerKey(t, cast);
      if (mode === "http") httpJudger = key.id;
      const uidBase = 76_000 + i * 100 + (shape.chaos ? 0 : 50);
      judges.push(await startJudge(t, `judge-${i + 1}-${mode}`, url, key, uidBase, mode));
    }
    procs.push(...judges);
    log(`processes up: ${procs.map((p) => p.name).join(", ")}`);

    // The class registers through both APIs and joins the domain; each opens its own live list.
    const tag = randomUUID().slice(0, 6);
    const students = await Promise.all(
      Array.from({ length: shape.students }, async (_, i) => {
        // A class's names: Chinese, accented, spaces inside, the letters p and C.
        const name = `${GIVEN[i % GIVEN.length]} ${tag}-${i}`;
        const registered = await call(urls, i, "/auth/register?responseType=json&cookie=false", {
          json: { username: name, email: `s${tag}${i}@example.edu`, password: `pw-${name}` },
        });
        const token = registered.body!.data.accessToken as string;
        const me = await call(urls, i, "/users/me", { token });
        await call(urls, i, `/domains/${d}/users`, {
          token: cast.owner.token,
          json: { user: me.body!.data.id, role: "user" },
        });
        return { name, token, index: i };
      }),
    );
    for (const s of students) watches.push(watch(urls, s.index, `/domains/${d}/records/events`, s.token, s.name));
    const ta = urls.map((_, i) => watch(urls, i, `/domains/${d}/records/events`, cast.admin.token, `ta-${i + 1}`));
    watches.push(...ta);
    await Bun.sleep(1000);
    log(`${students.length} students registered, ${watches.length} streams open`);

    // The deadline: every student submits `each` times within the minute, alternating APIs.
    const acknowledged = new Map<string, string>();
    const before = await snapshot(t);
    const chaos = shape.chaos ? disturb(t, judges, apis, httpJudger, log) : Promise.resolve(0);
    // A teacher imports a package mid-deadline, the request sent through every API at once.
    const imported = Bun.sleep(2000).then(() => importOnce(t, urls, d, cast.admin.token));
    // The deadline window: long enough for the chaos to land while submissions arrive.
    const spread = Math.min(50_000, Math.max(8_000, shape.students * 100));
    await Promise.all(
      students.flatMap((s) =>
        Array.from({ length: shape.each }, async (_, k) => {
          await Bun.sleep(Math.random() * spread);
          const form = () => {
            const f = new FormData();
            f.set("language", "c");
            f.append("files", new File([PROGRAM(`${s.name} ${k}`)], "main.c"));
            return f;
          };
          const answer = await call(urls, s.index + k, `/domains/${d}/problem_sets/${set}/problems/${problem}/submit`, {
            token: s.token,
            form,
          });
          if (answer.body?.errorCode === "Success") acknowledged.set(answer.body.data.id, s.name);
        }),
      ),
    );
    const heldAtRestart = await chaos;
    log(`${acknowledged.size} submissions acknowledged`);
    const em = () => t.orm.em.fork();
    const finalIn = "('accepted','rejected','failed')";
    for (let i = 0; i < 3000; i++) {
      const [{ n }] = await em().execute<{ n: number }[]>(
        `select count(*)::int as n from records where problem_id = ? and state not in ${finalIn}`,
        [problem],
      );
      if (n === 0) break;
      await Bun.sleep(200);
    }
    // Streams get the last announcements within a burst or two.
    await Bun.sleep(1500);
    const load = await loadSince(t, before);
    const rows = await em().execute<{ id: string; state: string; ms: number; why: string | null }[]>(
      `select id, state, extract(epoch from (judged_at - created_at)) * 1000 as ms,
              case when state = 'failed' then cases -> 0 ->> 'stderr' end as why
         from records where problem_id = ?`,
      [problem],
    );
    const ids = new Set(rows.map((r) => r.id));
    const final = rows.filter((r) => ["accepted", "rejected", "failed"].includes(r.state));
    let expected = 0;
    let seen = 0;
    for (const w of watches) {
      const own = w.name.startsWith("ta-")
        ? [...acknowledged.keys()]
        : [...acknowledged].filter(([, who]) => who === w.name).map(([id]) => id);
      expected += own.length;
      seen += own.filter((id) => ["accepted", "rejected", "failed"].includes(w.states.get(id) ?? "")).length;
    }

    // A user spreads twelve submissions at once over every API: the limit (a burst of 6) is one limit.
    const greedy = cast.member;
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, k) =>
        call(urls, k, `/domains/${d}/problems/${problem}`, {
          token: greedy.token,
          form: () => {
            const f = new FormData();
            f.set("language", "c");
            f.append("files", new File([PROGRAM(`greedy ${k}`)], "main.c"));
            return f;
          },
        }),
      ),
    );
    // The board from every API, and a similarity report asked for through every API at once.
    const boards = await Promise.all(
      urls.map((_, i) => call(urls, i, `/domains/${d}/problem_sets/${set}/scoreboard`, { token: cast.admin.token })),
    );
    await Promise.all(
      urls.map((_, i) =>
        call(urls, i, `/domains/${d}/problems/${problem}/similarity`, { token: cast.admin.token, json: {} }),
      ),
    );
    const [{ n: reports }] = await em().execute<{ n: number }[]>(
      "select count(*)::int as n from similarity_reports where problem_id = ?",
      [problem],
    );
    const cpu: [string, number][] = await Promise.all(
      procs.map(async (p) => [p.name, await p.cpu()] as [string, number]),
    );
    const times = final.map((r) => Number(r.ms));
    return {
      acknowledged: acknowledged.size,
      judged: final.filter((r) => acknowledged.has(r.id)).length,
      duplicates: rows.length - ids.size + [...ids].filter((id) => !acknowledged.has(id)).length,
      lost: [...acknowledged.keys()].filter((id) => !final.some((r) => r.id === id)).length,
      failed: final.filter((r) => r.state === "failed").length,
      judgedTwice: [...ends].filter(([id, n]) => n > 1 && acknowledged.has(id)).length,
      streamErrors,
      apiErrors,
      pgConnectionsPeak: connections.peak(),
      pgConnections: connections.each(),
      heldAtRestart,
      failures: final.filter((r) => r.state === "failed").map((r) => r.why ?? "(no message)"),
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      eventsExpected: expected,
      eventsSeen: seen,
      resets: watches.reduce((n, w) => n + w.resets, 0),
      limitAccepted: burst.filter((a) => a.body?.errorCode === "Success").length,
      boardsEqual: boards.every((b) => JSON.stringify(b.body?.data) === JSON.stringify(boards[0].body?.data)),
      similarityReports: reports,
      serverErrors: tally.serverErrors,
      retried: tally.retried,
      cpu,
      seconds: (performance.now() - started) / 1000,
      load,
      imported: await imported,
      storage: s3 ? "s3" : "fs",
    };
  } finally {
    await connections.stop();
    await Promise.all(watches.map((w) => w.stop()));
    for (const p of procs.reverse()) await p.stop().catch(() => {});
    await t.close();
    await s3?.stop();
  }
}
