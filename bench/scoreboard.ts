import { SQL } from "bun";
import { BOARD_ROWS_SQL, BOARD_STAMP_SQL } from "../src/modules/scoreboard/scoreboard.sql";
import { TEST_JWT_SECRET, TEST_REDIS_URL } from "../tests/helpers/spawn-app";
import { benchApp, fmt, report } from "./harness";
import { fillContest, RULES, type Rule } from "./scoreboard-fill";
import { floorRows } from "./scoreboard-floor";
import {
  get,
  type Load,
  measureLoad,
  type Server,
  spawnServer,
  startWriter,
  stopServers,
  versus,
} from "./scoreboard-load";

/**
 * `bun run bench:scoreboard`: a contest's board (USERS students × PROBLEMS problems × RECORDS records, made
 * by SQL: scoreboard-fill.ts) by each rule, read from the API as a process of its own (`bun src/main.ts`,
 * production settings, a fresh process per rule) by a client in this process, as a domain admin and as a
 * student: (a) the first board after the process starts, (b) boards with nothing changed, at 1 and 8 in
 * flight for SECONDS each, (c) the same while a writer judges WRITES records a second. Floors from the same
 * run: the rows read raw with Bun.sql in this process, and a bare Bun.serve + Bun.sql process answering the
 * rows (scoreboard-floor.ts). FILL_ONLY=1 fills a database and keeps it, for EXPLAIN; PROFILE=1 runs the API
 * under `bun --cpu-prof --cpu-prof-md` (profiles in /tmp/joj-bench-scoreboard-profiles).
 */
const USERS = Number(process.env.USERS ?? 500);
const PROBLEMS = Number(process.env.PROBLEMS ?? 12);
const RECORDS = Number(process.env.RECORDS ?? 20_000);
// The domain's practice records outside the contest: a table the contest is a part of, as in production.
const OTHER = Number(process.env.OTHER ?? 200_000);
const SECONDS = Number(process.env.SECONDS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 1);
const WRITES = Number(process.env.WRITES ?? 10);
const ONLY = (process.env.RULES ?? RULES.join(",")).split(",") as Rule[];
const PROFILE = process.env.PROFILE
  ? ["--cpu-prof", "--cpu-prof-md", "--cpu-prof-dir=/tmp/joj-bench-scoreboard-profiles"]
  : [];
const TARGET_MS = 100;

const { t, cast } = await benchApp({ LOG_LEVEL: "error" });
const databaseUrl = t.config.databaseUrl!;
const database = new URL(databaseUrl).pathname.slice(1);
const sql = new SQL(databaseUrl, { max: 4 });
console.log(
  `filling: ${USERS} students, ${PROBLEMS} problems, ${RECORDS} records a set, a set a rule, ${OTHER} others`,
);
const filling = performance.now();
const size = { users: USERS, problems: PROBLEMS, records: RECORDS, other: OTHER };
const contest = await fillContest(t, sql, cast, size).catch(async (error) => {
  await sql.close();
  await t.close();
  throw error;
});
console.log(`filled in ${fmt((performance.now() - filling) / 1000)} s`);
const viewers = { manager: cast.admin.token, student: contest.student.token };
if (process.env.FILL_ONLY) {
  // For EXPLAIN by hand: the database is kept (no clean-up).
  console.log(`filled: ${databaseUrl} sets ${JSON.stringify(contest.sets)}`);
  process.exit(0);
}

const api = {
  MODE: "production",
  HOST: "127.0.0.1",
  DATABASE_URL: databaseUrl,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: `bench-scoreboard-${process.pid}`,
  DATA_DIR: "/tmp/joj-bench-scoreboard",
  STORAGE_DIR: t.config.storage.dir,
  JWT_SECRET: TEST_JWT_SECRET,
  LOG_LEVEL: "error",
};
const startApi = () => spawnServer("../src/main.ts", api, "/api/v1/version", PROFILE);
const floor = await spawnServer("scoreboard-floor.ts", { DATABASE_URL: databaseUrl, JWT_SECRET: TEST_JWT_SECRET }, "/");
const boardPath = (set: string) => `/api/v1/domains/${contest.domain}/problem_sets/${set}/scoreboard`;

/** The same rows read raw in this process, on a fresh connection: the first read, and the median of five. */
async function rawRows(set: string) {
  const fresh = new SQL(databaseUrl, { max: 1 });
  await fresh`select 1`;
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    rows = (await floorRows(fresh, set)).length;
    times.push(performance.now() - started);
  }
  await fresh.close();
  return { first: times[0], median: times.toSorted((a, b) => a - b)[2], rows };
}

/** The app's own statements timed from this process (median of five): the SQL part of a board. */
async function appStatements(set: string, ioi: boolean) {
  const median = async (text: string, values: unknown[]) => {
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await sql.unsafe(numbered, values);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[2];
  };
  return { rows: await median(BOARD_ROWS_SQL, [ioi, set]), stamp: await median(BOARD_STAMP_SQL, [set]) };
}

/** The admin's board, then the student's, each timed, with its text. */
async function boardsOf(server: Server, set: string) {
  const timedGet = async (token: string) => {
    const started = performance.now();
    const response = await get(server.base + boardPath(set), token);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`board: HTTP ${response.status} ${text.slice(0, 300)}`);
    return { ms: performance.now() - started, text };
  };
  const manager = await timedGet(viewers.manager);
  return { manager, student: await timedGet(viewers.student) };
}

/** (b) or (c): the floor, then each viewer's board, at 1 and at 8 in flight. */
async function loads(server: Server, set: string) {
  const out: Record<string, Load> = {};
  const spec = { database, seconds: SECONDS, warmup: WARMUP };
  for (const inFlight of [1, 8]) {
    const url = `${floor.base}/sets/${set}`;
    out[`floor ${inFlight}`] = await measureLoad({ ...spec, url, token: viewers.manager, inFlight, pid: floor.pid });
    for (const [viewer, token] of Object.entries(viewers))
      out[`${viewer} ${inFlight}`] = await measureLoad({
        ...spec,
        url: server.base + boardPath(set),
        token,
        inFlight,
        pid: server.pid,
      });
  }
  return out;
}

/**
 * A fresh process whose first request is another one (/users/me): its first board is the full read without
 * the process's own first-request costs, and the board read whole to check the one kept by changes against.
 */
async function wholeBoards(set: string) {
  const server = await startApi();
  const started = performance.now();
  await (await get(`${server.base}/api/v1/users/me`, viewers.manager)).arrayBuffer();
  const usersMe = performance.now() - started;
  const boards = await boardsOf(server, set);
  await server.stop();
  return { ...boards, usersMe };
}

async function measureRule(rule: Rule) {
  const set = contest.sets[rule];
  const server = await startApi();
  const cold = await boardsOf(server, set);
  const raw = await rawRows(set);
  const statements = await appStatements(set, rule === "ioi");
  const warm = await loads(server, set);
  const writer = startWriter(sql, contest.recordIds[rule], WRITES);
  const writing = await loads(server, set);
  const written = await writer.stop();
  const kept = await boardsOf(server, set);
  await server.stop();
  const whole = await wholeBoards(set);
  const dataOf = (text: string) => JSON.stringify(JSON.parse(text).data);
  const same =
    dataOf(kept.manager.text) === dataOf(whole.manager.text) &&
    dataOf(kept.student.text) === dataOf(whole.student.text);
  return { cold, raw, statements, warm, writing, written, whole, same };
}

function reportRule(rule: Rule, m: Awaited<ReturnType<typeof measureRule>>) {
  const board = JSON.parse(m.cold.manager.text).data;
  const kib = (text: string) => `${fmt(text.length / 1024)} KiB`;
  const rows: [string, string][] = [
    [
      "board",
      `${board.rows.length} rows × ${board.problems.length} problems, ${kib(m.cold.manager.text)} ` +
        `(student ${kib(m.cold.student.text)}); the floor's answer: ${m.raw.rows} rows` +
        (rule === "ioi" ? ` · subtasks in the first cell: ${board.rows[0].cells[0].subtasks?.length ?? "none"}` : ""),
    ],
    [
      "(a) cold: the admin's first board",
      `${fmt(m.cold.manager.ms)} ms · floor: the rows raw ${fmt(m.raw.first)} ms first, ${fmt(m.raw.median)} ms ` +
        `median · ÷ floor ${fmt(m.cold.manager.ms / m.raw.first)} · the app's statement alone ${fmt(m.statements.rows)} ms`,
    ],
    [
      "(a) the first board after a /users/me",
      `${fmt(m.whole.manager.ms)} ms (a fresh process whose first request, /users/me, took ${fmt(m.whole.usersMe)} ms)`,
    ],
    [
      "(a) then the student's first board",
      `${fmt(m.cold.student.ms)} ms (the rows cached, the student's view computed)`,
    ],
    ["    the app's stamp statement alone", `${fmt(m.statements.stamp)} ms`],
  ];
  for (const [label, loaded] of [
    ["(b) warm", m.warm],
    ["(c) while writing", m.writing],
  ] as const)
    for (const key of ["manager 1", "student 1", "manager 8", "student 8"])
      rows.push([
        `${label}, ${key.replace(" ", ", ")} in flight`,
        versus(loaded[key], loaded[`floor ${key.split(" ")[1]}`]),
      ]);
  rows.push([
    "(c) writer",
    `${m.written.writes} records judged, ${fmt(m.written.perSecond)} a second · ` +
      `board kept by changes = board read whole: ${m.same ? "yes" : "NO"}`,
  ]);
  const verdict = (ms: number) => `${fmt(ms)} ms ${ms < TARGET_MS ? "holds" : "DOES NOT HOLD"}`;
  const p99 = (loaded: Record<string, Load>) => Math.max(loaded["manager 1"].p99, loaded["student 1"].p99);
  rows.push([
    `target: a board under ${TARGET_MS} ms`,
    `cold ${verdict(m.cold.manager.ms)} · warm, p99 at 1 in flight ${verdict(p99(m.warm))} · ` +
      `while writing, p99 at 1 in flight ${verdict(p99(m.writing))}`,
  ]);
  report(`Scoreboard, rule ${rule}: ${USERS} users × ${PROBLEMS} problems × ${RECORDS} records`, rows);
}

try {
  for (const rule of ONLY) reportRule(rule, await measureRule(rule));
} finally {
  await stopServers();
  await sql.close();
  await t.close();
}
