import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { submission, submit } from "../helpers/records";
import { finalRecord, judgeStack, problemWithData, type JudgeStack } from "../helpers/judging";

// Issue 40's carry-over corpus: pairs of records judged one after the other in the same slot (one slot, so
// the same container). The first, a student's correct a + b, leaves something behind; the second, another
// student's, looks for it (look.c) or needs the slot's memory (needs-150.c). The second must get what it
// gets on a fresh judge, and the slot must keep judging. Each planter names the defence it tests: without
// it, the looker finds the leftover, or the memory one is memory_limit_exceeded (or the slot fails).
const FIXTURES = join(import.meta.dir, "..", "fixtures", "carry-over");
const source = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
let stack: JudgeStack;
let problem: string;

const CONFIG = {
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-pthread", "-o", "main", "main.c"],
      caseDefault: { time: "3s", memory: "256m", score: 100, executeFiles: ["main"], executeArgs: ["./main"] },
      cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out" }],
    },
  ],
};

interface Judged {
  state: string;
  memoryKb: number;
  stderr: string;
}

/** One record of `program` by `who`, judged: its state, its memory and what its case said on stderr. */
async function judged(program: string, who: "member" | "admin"): Promise<Judged> {
  const { t, cast } = stack;
  const files = { "main.c": source(program), "sum.h": source("sum.h") };
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const response = await submit(t, cast[who].token, path, submission("c", files));
  expect(response.body.errorCode).toBe("Success");
  const row = await finalRecord(t, response.body.data.id, 120_000);
  const [first] = row.cases as { stderr: string }[];
  return { state: row.state, memoryKb: row.memory_kb, stderr: first?.stderr ?? "" };
}

/** The test process's children: the judge runs here, and spawns only its slots' bubblewrap. */
function children(): string[] {
  const names: string[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const pids = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").trim().split(/\s+/);
    for (const pid of pids.filter(Boolean)) {
      try {
        names.push(readFileSync(`/proc/${pid}/comm`, "utf8").trim());
      } catch {
        /* ended meanwhile */
      }
    }
  }
  return names;
}

const fresh: Record<string, Judged> = {};
beforeAll(async () => {
  stack = await judgeStack(72_000, { JUDGE_CONCURRENCY: "1", JUDGE_OUTPUT_LIMIT_MB: "16" });
  problem = await problemWithData(stack.t, stack.cast, CONFIG, { "1.in": "20 22\n", "1.out": "42\n" });
  // What the lookers get on the fresh judge, before anything was planted.
  fresh.look = await judged("look.c", "admin");
  fresh.memory = await judged("needs-150.c", "admin");
}, 180_000);
afterAll(() => stack?.close());

describe("on a fresh judge", () => {
  test("the lookers are accepted, find nothing, and the memory one needs its 150 MiB", () => {
    expect(fresh.look).toMatchObject({ state: "accepted", stderr: "leftovers: none\n" });
    expect(fresh.memory.state).toBe("accepted");
    expect(fresh.memory.memoryKb).toBeGreaterThan(150 * 1024);
  });
});

/** The looker after `planter`, another student's: as on the fresh judge, memory within a few pages. */
async function afterPlant(planter: string, looker: "look" | "memory") {
  const planted = await judged(planter, "member");
  const after = await judged(looker === "look" ? "look.c" : "needs-150.c", "admin");
  expect(after.state).toBe(fresh[looker].state);
  expect(after.stderr).toBe(fresh[looker].stderr);
  expect(Math.abs(after.memoryKb - fresh[looker].memoryKb)).toBeLessThan(8 * 1024);
  return planted;
}

/** A planter, what it leaves, and its own record: its state and what it says it planted. */
const PLANTERS: [string, string, { state: string; stderr: string }][] = [
  // Each run's /work is a tmpfs of its own, unmounted whole: no name is read, whatever its bytes.
  [
    "plant-names.c",
    "names that are not UTF-8: a directory, and 192 MiB of files in /work and /tmp",
    { state: "accepted", stderr: "planted 2 directories, 12 files of 16 MiB\n" },
  ],
  // The same: a tree of any depth goes with its file system, uncharged before the next run is limited.
  [
    "plant-deep.c",
    "a tree 30,000 levels deep with a file on each level",
    { state: "accepted", stderr: "planted 30000 levels\n" },
  ],
  ["plant-dirs.c", "2,000 empty directories", { state: "accepted", stderr: "planted 2000 directories\n" }],
  // Unix sockets only (seccomp): no port, connection or counter of a run is left in the namespace.
  [
    "plant-ports.c",
    "a port and a connection in TIME_WAIT",
    { state: "accepted", stderr: "inet Operation not permitted\n" },
  ],
  // The kernel collects it; until then the runner sees it in /proc/net/unix and throws the container away.
  ["plant-unix.c", "an abstract Unix name kept alive in flight", { state: "accepted", stderr: "planted @joj-leak\n" }],
  // Held before: the runner removes SysV objects, kills every process, and makes /tmp anew when touched.
  ["plant-ipc.c", "64 MiB of SysV shared memory", { state: "accepted", stderr: "planted 64 MiB of shared memory\n" }],
  // The kernel's own leftovers after many processes are waited for, or the group is made anew.
  [
    "plant-forks.c",
    "every process the limit allows, killed at its end",
    { state: "accepted", stderr: "planted many processes\n" },
  ],
  [
    "plant-processes.c",
    "a daemon, a subreaper's orphan, a stopped child and a lingering thread",
    { state: "rejected", stderr: "planted 4 processes and a thread\n" },
  ],
  [
    "plant-work-mode.c",
    "a file with a valid name, and /work and /tmp made unreadable",
    { state: "accepted", stderr: "planted left.txt, modes 0 0\n" },
  ],
];

describe.each(PLANTERS)("after %s (%s)", (planter, _what, own) => {
  test("another student's look finds nothing", async () => {
    const planted = await afterPlant(planter, "look");
    expect(planted).toMatchObject(own);
  }, 240_000);

  test("another student's program gets the slot's whole memory", async () => {
    const planted = await afterPlant(planter, "memory");
    expect(planted).toMatchObject(own);
  }, 240_000);
});

describe("what removing a leftover costs the judge", () => {
  test("2,000 leftover directories cost the judge no process: only the slot's bubblewrap is its child", async () => {
    const planted = await judged("plant-dirs.c", "member");
    expect(planted.state).toBe("accepted");
    // Right after the record: a removal that took a process per directory would still be running.
    // (The toolchain pinner, toolchain-pages.ts, lives as long as the judge.)
    expect(children().filter((name) => name !== "bwrap" && !name.startsWith("pinner-"))).toEqual([]);
  }, 120_000);
});
