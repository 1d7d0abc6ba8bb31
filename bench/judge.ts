import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { ensureTemplate } from "../tests/helpers/database";
import { spawnApp } from "../tests/helpers/spawn-app";
import { makeCast } from "../tests/helpers/domain-factories";
import { submission, submit } from "../tests/helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData } from "../tests/helpers/judging";
import { loadJudgeSettings } from "../src/judge/judge-settings";
import { planJudging } from "../src/judge/run/plan";
import { ensureRunner } from "../src/judge/sandbox/helpers";
import { runSandboxed } from "../src/judge/sandbox/container";
import { SlotPool } from "../src/judge/sandbox/slots";
import { detectCgroups } from "../src/judge/sandbox/cgroups/cgroups";
import { compareWith, runCase } from "../src/judge/run/steps";
import { runInSlot } from "../src/judge/sandbox/slots";
import { fmt, machineBusyMs, paired, report, timed } from "./harness";

/**
 * The judge on a trivial accepted C program, each number beside a floor measured in the same run:
 * 1. one run: the binary spawned bare, vs in a fresh sandbox (the old model), vs in the slot's living
 *    container, vs a whole case (/work reset, run, output compared); and a program touching 64 MiB bare
 *    vs in the container; RUNS times each, one at a time, each sandboxed run in turn with its bare floor
 *    (medians; the overhead is the median of the pairs' differences, and their mean, which counts the rare
 *    slow run a median hides: a cgroup join that waited 11 ms in one run of ten);
 * 2. throughput: RECORDS records of CASES cases submitted through the API and judged from the queue
 *    (compile + every case + every report), vs the same RECORDS × CASES runs of the binary bare, with
 *    the same concurrency; and the machine's busy CPU time a record in each (every process, from /proc/stat).
 *   bun bench/judge.ts        (RUNS=100 RECORDS=16 CASES=100 CONCURRENCY=<cpus>)
 */
const RUNS = Number(process.env.RUNS ?? 100);
const RECORDS = Number(process.env.RECORDS ?? 16);
const CASES = Number(process.env.CASES ?? 100);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? cpus().length);
/** Touches 64 MiB, page by page: the cost of memory accounting beside the floor. */
const ALLOC_SOURCE =
  "#include <stdlib.h>\n#include <string.h>\nint main(void){ char *p = malloc(64 << 20); memset(p, 1, 64 << 20); return p[4096] - 1; }\n";
const SOURCE =
  '#include <stdio.h>\nint main(void){ long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\\n", a + b); return 0; }\n';

const scratch = await mkdtemp(join(tmpdir(), "joj-bench-judge-"));
await chmod(scratch, 0o711);
const binary = join(scratch, "a.out");
await writeFile(join(scratch, "a.c"), SOURCE);
if ((await Bun.spawn(["gcc", "-O2", "-o", binary, join(scratch, "a.c")]).exited) !== 0) throw new Error("gcc failed");
await writeFile(join(scratch, "in"), "20 22\n");
await writeFile(join(scratch, "out"), "42\n");
const allocator = join(scratch, "alloc");
await writeFile(join(scratch, "alloc.c"), ALLOC_SOURCE);
if ((await Bun.spawn(["gcc", "-O2", "-o", allocator, join(scratch, "alloc.c")]).exited) !== 0)
  throw new Error("gcc failed");

async function bareAlloc(): Promise<void> {
  if ((await Bun.spawn([allocator], { stdout: "ignore" }).exited) !== 0) throw new Error("the allocator failed");
}

async function bareRun(): Promise<void> {
  const child = Bun.spawn([binary], { stdin: Bun.file(join(scratch, "in")), stdout: "pipe" });
  const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (out !== "42\n") throw new Error(`bare run printed ${out}`);
}

// 1. One run.
const env = {
  JUDGER_ACCESS_KEY_ID: "-",
  JUDGER_SECRET_ACCESS_KEY: "-",
  JUDGE_WORK_DIR: join(scratch, "work"),
  JUDGE_CACHE_DIR: join(scratch, "cache"),
};
const settings = loadJudgeSettings(env, []);
const runner = await ensureRunner(join(settings.workDir, "bin"));
const cgroups = detectCgroups();
const pool = await SlotPool.open(settings.workDir, 63_000, 1, { cgroups, diskBytes: settings.diskBytes });
const slot = await pool.acquire();
const config = {
  languages: [
    {
      name: "c",
      compileArgs: [],
      caseDefault: {
        executeFiles: ["a.out"],
        executeArgs: ["./a.out"],
        executeInputFile: "in",
        executeOutputFile: "out",
      },
      cases: [{}],
    },
  ],
};
const [plan] = planJudging(new TextEncoder().encode(JSON.stringify(config)), "c", settings)!.cases;
const program = [{ path: "a.out", mode: 0o755, hostPath: binary }];
const input = { path: "in", mode: 0o644, hostPath: join(scratch, "in") };
/** The old model, for comparison: a whole bubblewrap sandbox set up for one run and torn down. */
const freshSandboxRun = async () => {
  const run = await runSandboxed({
    runner,
    stageDir: join(scratch, "fresh-stage"),
    files: [...program, input],
    argv: ["./a.out"],
    stdin: "in",
    limits: plan.limits,
    uid: slot.uid,
    cgroup: slot.cgroup,
    tmpBytes: settings.diskBytes,
  });
  if (run.lost || run.exitCode !== 0) throw new Error(`sandboxed run failed: ${run.diagnostics}`);
};
// The slot's living container; each run's /work gets the program and the input from the stage, where they
// stay from run to run, as a program does between the cases of a record.
const tools = { runner, settings };
const containerRun = (argv: string[], stdin: string | null, files: typeof program) => async () => {
  const limits = { ...plan.limits, memoryKb: 256 * 1024 };
  const run = await runInSlot(slot, tools, { argv, stdin, limits, files });
  if (run.lost || run.exitCode !== 0) throw new Error(`sandboxed run failed: ${run.diagnostics}`);
};
const wholeCase = async () => {
  const { report: result } = await runCase(
    plan,
    program,
    join(scratch, "in"),
    compareWith(join(scratch, "out"), plan.compare),
    slot,
    tools,
  );
  if (result.state !== "accepted") throw new Error(`case ended ${result.state}`);
};
const trivial = containerRun(["./a.out"], "in", [...program, input]);
const allocating = containerRun(["./alloc"], null, [{ path: "alloc", mode: 0o755, hostPath: allocator }]);
const perRun = async (run: () => Promise<void>) => {
  await run();
  return (await timed(RUNS, 1, run)) / RUNS;
};
const bareMs = await perRun(bareRun);
// Before the slot's container starts: a one-run sandbox's end kills every process of the slot uid.
const freshMs = await perRun(freshSandboxRun);
const trivialPairs = await paired(RUNS, bareRun, trivial);
const allocPairs = await paired(RUNS, bareAlloc, allocating);
const casePairs = await paired(RUNS, bareRun, wholeCase);
await slot.container?.close();
pool.release(slot);
await pool.close();
const over = (ms: number, floor: number) => `${fmt(ms)} ms (${fmt(ms / floor)}x, +${fmt(ms - floor)} ms)`;
const inTurns = (p: { floor: number; run: number; over: number; meanOver: number }) =>
  `${fmt(p.run)} ms over ${fmt(p.floor)} (+${fmt(p.over)} ms; mean +${fmt(p.meanOver)} ms)`;
report(`One run (${RUNS} each, one at a time; bubblewrap + runner + seccomp + cgroup v${cgroups.version})`, [
  ["floor: the trivial binary spawned bare (mean)", `${fmt(bareMs)} ms`],
  ["  in a fresh sandbox per run (the old model, mean)", over(freshMs, bareMs)],
  ["medians, each in turn with its floor:", ""],
  ["  in the slot's living container", inTurns(trivialPairs)],
  ["  a whole case: staged, run, compared", inTurns(casePairs)],
  ["  a program touching 64 MiB, in the container", inTurns(allocPairs)],
]);

/** Resolves once the judge process logs that it is ready; its later lines are read and dropped. */
async function ready(stdout: ReadableStream<Uint8Array>): Promise<void> {
  const lines = stdout.pipeThrough(new TextDecoderStream())[Symbol.asyncIterator]();
  let seen = "";
  while (!seen.includes('"msg":"judge ready"')) {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the judge ended before it was ready:\n${seen}`);
    seen += value;
  }
  void (async () => {
    while (!(await lines.next()).done) {}
  })();
}

// 2. Throughput through the API, the queue and the judge (RECORDS=0: the one-run figures alone).
if (RECORDS === 0) process.exit(process.exitCode ?? 0);
await ensureTemplate();
const t = await spawnApp({ LOG_LEVEL: "warn" }, { configsWorker: true, quietLogs: true });
try {
  const cast = await makeCast(t);
  const server = listen(t);
  // The judge as deployed: its own process (workers/judge.ts), talking to the API over HTTP and the queue.
  const env = judgeEnv(t, server, await judgerKey(t, cast), 63_100, { JUDGE_CONCURRENCY: String(CONCURRENCY) });
  await chmod(join(env.JUDGE_WORK_DIR, ".."), 0o711);
  const profile = process.env.JUDGE_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.JUDGE_PROFILE}`] : [];
  const judge = Bun.spawn([process.execPath, ...profile, "--no-env-file", "workers/judge.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: { PATH: process.env.PATH ?? "", HOME: "/tmp", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  await ready(judge.stdout);
  const cases = Array.from({ length: CASES }, () => ({}));
  const problem = await problemWithData(
    t,
    cast,
    {
      languages: [
        {
          name: "c",
          compileFiles: ["a.c"],
          compileArgs: ["gcc", "-O2", "-o", "a.out", "a.c"],
          caseDefault: {
            executeFiles: ["a.out"],
            executeArgs: ["./a.out"],
            executeInputFile: "in",
            executeOutputFile: "out",
          },
          cases,
        },
      ],
    },
    { in: "20 22\n", out: "42\n" },
  );
  const floorBusy = await machineBusyMs();
  const floorMs = await timed(RECORDS * CASES, CONCURRENCY, bareRun);
  const floorCpu = (await machineBusyMs()) - floorBusy;
  const gccMs =
    (await timed(10, 1, async () => {
      if ((await Bun.spawn(["gcc", "-O2", "-o", join(scratch, "b.out"), join(scratch, "a.c")]).exited) !== 0)
        throw new Error("gcc failed");
    })) / 10;
  const judgeBusy = await machineBusyMs();
  const started = performance.now();
  const ids = await Promise.all(
    Array.from(
      { length: RECORDS },
      async () =>
        (
          await submit(
            t,
            cast.member.token,
            `/domains/${cast.domain.id}/problems/${problem}`,
            submission("c", { "a.c": SOURCE }),
          )
        ).body.data.id as string,
    ),
  );
  const rows = await Promise.all(ids.map((id) => finalRecord(t, id, 600_000)));
  const judgeMs = performance.now() - started;
  const judgeCpu = (await machineBusyMs()) - judgeBusy;
  judge.kill("SIGTERM");
  await judge.exited;
  const accepted = rows.filter((r) => r.state === "accepted").length;
  report(`Judge throughput: ${RECORDS} records × ${CASES} cases, ${CONCURRENCY} judging at once`, [
    [
      "floor: the same runs, bare",
      `${fmt(floorMs / RECORDS)} ms/record (${fmt(((RECORDS * CASES) / floorMs) * 1000)} runs/s)`,
    ],
    [
      "judged: submit → compile → cases → final",
      `${fmt(judgeMs / RECORDS)} ms/record, ${fmt((RECORDS / judgeMs) * 1000)} records/s, ${fmt(((RECORDS * CASES) / judgeMs) * 1000)} cases/s`,
    ],
    ["judge vs floor", `${fmt(judgeMs / floorMs)}x`],
    [
      "machine CPU: floor / judged (every process)",
      `${fmt(floorCpu / RECORDS)} / ${fmt(judgeCpu / RECORDS)} ms a record (${fmt(judgeCpu / floorCpu)}x)`,
    ],
    ["for scale: one bare gcc -O2 of the program", `${fmt(gccMs)} ms`],
    ["check: accepted", `${accepted} / ${RECORDS}`],
  ]);
  if (accepted !== RECORDS) process.exitCode = 1;
} finally {
  await t.app.stop(true);
  await t.close();
}
// The app's and the queue's handles would keep the process alive.
process.exit(process.exitCode ?? 0);
