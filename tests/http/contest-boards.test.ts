import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { configVersion, judgeableProblem, recordRow, submit } from "../helpers/records";
import { expectConforms } from "../helpers/schema-check";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { ScoreboardResp } from "../../src/modules/scoreboard/scoreboard.schemas";

// Scripted contests through the API (docs/contests.md): each submission judged over the judge protocol with
// the verdicts the script gives, its time set as the script says; the boards equal ones computed by hand.

let t: TestApp;
let cast: Cast;
let judger: TestUser;
const students = new Map<string, TestUser>();
const domain = () => `/domains/${cast.domain.id}`;
const DAY = "2026-03-01";
const at = (hhmm: string) => `${DAY}T${hhmm}:00Z`;

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  for (const name of ["alice", "bob", "carol", "dina", "erik", "fay"]) {
    const student = await createUser(t, { username: `${name}-${cast.domain.id.slice(0, 4)}` });
    await addMembership(t, cast.domain, student, "user");
    students.set(name, student);
  }
});
afterAll(() => t?.close());

type Verdict = "AC" | "WA" | "CE" | "TLE" | "RTE";
const CASE_STATE: Record<Verdict, string> = {
  AC: "accepted",
  WA: "wrong_answer",
  CE: "compile_error",
  TLE: "time_limit_exceeded",
  RTE: "runtime_error",
};

/** Judges a record over the protocol: each case's verdict and score, then the record's state. */
async function judge(id: string, cases: [Verdict, number][]) {
  const { task_id } = await recordRow(t, id);
  const base = `${domain()}/records/${id}`;
  expect((await t.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token })).body.errorCode).toBe(
    "Success",
  );
  for (const [i, [verdict, score]] of cases.entries())
    await t.api.put(
      `${base}/cases/${i}/judge`,
      { state: CASE_STATE[verdict], score, timeMs: 3, memoryKb: 900, stdout: "", stderr: "" },
      { token: judger.token },
    );
  const state = cases.every(([v]) => v === "AC") ? "accepted" : "rejected";
  await t.api.put(`${base}/judge`, { state }, { token: judger.token });
}

/** A student's submission through the set, judged, then dated as the script says. */
async function scripted(set: string, who: string, problem: string, time: string, cases: [Verdict, number][]) {
  const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
  const answer = await submit(t, students.get(who)!.token, path);
  expect(answer.body.errorCode).toBe("Success");
  const id = answer.body.data.id as string;
  await judge(id, cases);
  await t.orm.em
    .fork()
    .execute("update records set created_at = ?, updated_at = now() where id = ?", [new Date(at(time)), id]);
  return id;
}

async function makeSet(title: string, body: object, problems: string[]) {
  const set = (await t.api.post(`${domain()}/problem_sets`, { title, ...body }, { token: cast.admin.token })).body.data;
  for (const problem of problems)
    await t.api.post(`${domain()}/problem_sets/${set.id}/problems`, { problem }, { token: cast.admin.token });
  return set.id as string;
}

/** The board, checked against its schema exactly (it is sent as written: scoreboard-view.ts). */
async function board(set: string, token: string, query = "") {
  const response = await t.api.get(`${domain()}/problem_sets/${set}/scoreboard${query}`, { token });
  expectConforms(ScoreboardResp, response);
  return response.body.data;
}
const named = (username: string) => username.split("-")[0];
/** The rows of those who submitted; every other participant has a row with nothing (checked on its own). */
const submitted = <R extends { cells: unknown[] }>(b: { rows: R[] }) => b.rows.filter((r) => r.cells.length > 0);
const summary = (b: {
  rows: { rank: number; username: string; solved: number; penalty: number; cells: unknown[] }[];
}) => submitted(b).map((r) => [r.rank, named(r.username), r.solved, r.penalty]);
const ac: [Verdict, number][] = [
  ["AC", 50],
  ["AC", 50],
];
const one = (v: Verdict): [Verdict, number][] => [
  [v, 0],
  ["AC", 50],
];

describe("an ICPC contest", () => {
  let set: string;
  let problems: string[];
  let aliceFirstA: string;

  beforeAll(async () => {
    problems = [await judgeableProblem(t, cast), await judgeableProblem(t, cast), await judgeableProblem(t, cast)];
    const [A, B, C] = problems;
    set = await makeSet("ICPC practice", { scoreboardRule: "icpc", penaltyMinutes: 20 }, problems);
    aliceFirstA = await scripted(set, "alice", A, "09:10", one("WA"));
    await scripted(set, "alice", A, "09:25", ac); // 25 + 20
    await scripted(set, "alice", B, "10:00", one("CE")); // free
    await scripted(set, "alice", B, "10:30", ac); // 90
    await scripted(set, "alice", C, "13:30", ac); // 270, frozen
    await scripted(set, "bob", A, "09:20", ac); // 20: first to solve A
    await scripted(set, "bob", B, "11:00", one("TLE"));
    await scripted(set, "bob", B, "11:05", one("RTE"));
    await scripted(set, "bob", B, "11:30", ac); // 150 + 40
    await scripted(set, "bob", C, "12:00", one("WA"));
    await scripted(set, "bob", C, "13:40", ac); // 280 + 20, frozen
    await scripted(set, "carol", A, "09:45", ac); // 45
    await scripted(set, "carol", B, "10:30", ac); // 90, with alice: both first
    await scripted(set, "carol", C, "13:00", ac); // 240, at the freeze instant: frozen
    const window = { unlockAt: at("09:00"), dueAt: at("14:00"), lockAt: at("14:00"), freezeAt: at("13:00") };
    expect(
      (await t.api.patch(`${domain()}/problem_sets/${set}`, window, { token: cast.admin.token })).body,
    ).toMatchObject({ errorCode: "Success", data: { scoreboardRule: "icpc", penaltyMinutes: 20 } });
  });

  test("staff see the live board: solved then penalty, first to solve, ties at one instant both first", async () => {
    const live = await board(set, cast.admin.token);
    expect(live).toMatchObject({ rule: "icpc", frozen: false, sealed: false });
    expect(summary(live)).toEqual([
      [1, "carol", 3, 375],
      [2, "alice", 3, 405],
      [3, "bob", 3, 510],
    ]);
    const firsts = live.rows.flatMap((r: any) =>
      r.cells
        .filter((c: any) => c.firstToSolve)
        .map((c: any) => `${named(r.username)}:${problems.indexOf(c.problemId)}`),
    );
    expect(firsts.sort()).toEqual(["alice:1", "bob:0", "carol:1", "carol:2"]);
    const bobB = live.rows[2].cells[1];
    expect(bobB).toMatchObject({ attempts: 3, pending: 0, solvedMinute: 150, penaltyMinutes: 190 });
    // The participants who never submitted follow, nothing solved, tied; the admin (staff) is no row.
    const idle = live.rows.filter((r: any) => r.cells.length === 0);
    const never = ["dina", "erik", "fay"].map((name) => students.get(name)!.user.id);
    expect(idle.map((r: any) => r.userId).sort()).toEqual([...never, cast.member.user.id].sort());
    expect(idle.map((r: any) => [r.rank, r.solved, r.penalty])).toEqual(idle.map(() => [4, 0, 0]));
  });

  test("a student sees others frozen from the freeze instant, their own always; the CSV agrees with the board", async () => {
    const bob = await board(set, students.get("bob")!.token);
    expect(bob).toMatchObject({ frozen: true, freezeAt: "2026-03-01T13:00:00.000+00:00" });
    expect(summary(bob)).toEqual([
      [1, "bob", 3, 510],
      [2, "alice", 2, 135],
      [2, "carol", 2, 135],
    ]);
    expect(bob.rows[2].cells[2]).toMatchObject({ state: "pending", pending: 1, attempts: 1, penaltyMinutes: null });
    // As the public sees it (staff's projector): nobody's own results.
    expect(summary(await board(set, cast.admin.token, "?view=public"))).toEqual([
      [1, "alice", 2, 135],
      [1, "carol", 2, 135],
      [3, "bob", 2, 210],
    ]);
    const csv = await (
      await t.app.handle(
        new Request(`http://localhost/api/v1${domain()}/problem_sets/${set}/scoreboard.csv`, {
          headers: { authorization: `Bearer ${cast.admin.token}` },
        }),
      )
    ).text();
    const live = await board(set, cast.admin.token);
    for (const row of live.rows) {
      const line = csv.split("\r\n").find((l) => l.includes(row.username))!;
      const cells = line.split(",");
      expect(Number(cells.at(-1))).toBe(row.totalScore);
      for (const [i, problem] of problems.entries()) {
        const cell = row.cells.find((c: any) => c.problemId === problem);
        expect(cells[3 + i * 3]).toBe(cell?.recordId ? String(cell.score) : "");
      }
    }
  });

  test("unfreezing is audited and shows everyone the live board", async () => {
    const answer = await t.api.post(`${domain()}/problem_sets/${set}/scoreboard/unfreeze`, undefined, {
      token: cast.admin.token,
    });
    expect(answer.body.data.unfrozenAt).not.toBeNull();
    expect(
      (
        await t.api.post(`${domain()}/problem_sets/${set}/scoreboard/unfreeze`, undefined, {
          token: students.get("bob")!.token,
        })
      ).body,
    ).toEqual({ detail: "problem_set edit Permission Denied." });
    expect(summary(await board(set, students.get("bob")!.token))[0]).toEqual([1, "carol", 3, 375]);
    const audit = await t.api.get(`${domain()}/audit?action=problem_set.unfreeze`, { token: cast.owner.token });
    expect(audit.body.data.results).toEqual([
      expect.objectContaining({ action: "problem_set.unfreeze", actorId: cast.admin.user.id }),
    ]);
  });

  test("a student removed from the domain keeps their row on the board and in the grade book", async () => {
    const carol = students.get("carol")!;
    const removed = await t.api.delete(`${domain()}/users/${carol.user.id}`, { token: cast.admin.token });
    expect(removed.body.errorCode).toBe("Success");
    expect(summary(await board(set, cast.admin.token))[0]).toEqual([1, "carol", 3, 375]);
    const csv = await (
      await t.app.handle(
        new Request(`http://localhost/api/v1${domain()}/problem_sets/${set}/scoreboard.csv`, {
          headers: { authorization: `Bearer ${cast.admin.token}` },
        }),
      )
    ).text();
    expect(csv).toContain(carol.user.username);
    await addMembership(t, cast.domain, carol, "user");
  });

  test("a rejudge that accepts alice's first submission moves her solve, its penalty and attempts", async () => {
    const rejudge = await t.api.post(`${domain()}/records/${aliceFirstA}/rejudge`, undefined, {
      token: cast.admin.token,
    });
    expect(rejudge.body.errorCode).toBe("Success");
    await judge(aliceFirstA, ac);
    const live = await board(set, cast.admin.token);
    const alice = live.rows.find((r: any) => named(r.username) === "alice");
    expect(alice.cells[0]).toMatchObject({ solvedMinute: 10, penaltyMinutes: 10, attempts: 1 });
    expect(summary(live)[0]).toEqual([1, "alice", 3, 370]);
  });
});

describe("an IOI contest and an OI one", () => {
  let problem: string;
  const IOI_CONFIG = {
    languages: [
      {
        name: "c",
        cases: [0, 1, 2, 3].map(() => ({
          category: "secret",
          score: 25,
          executeInputFile: "case.in",
          executeOutputFile: "case.out",
        })),
        subtasks: [
          { score: 20, cases: [0] },
          { score: 30, cases: [1] },
          { score: 50, cases: [2, 3] },
        ],
      },
    ],
  };

  beforeAll(async () => {
    problem = await judgeableProblem(t, cast);
    await configVersion(t, problem, IOI_CONFIG);
  });

  test("IOI: each subtask's best over all submissions, summed; two partial solutions add up; ties share", async () => {
    const set = await makeSet("IOI day 1", { scoreboardRule: "ioi" }, [problem]);
    // The judge puts a subtask's score on its last case.
    await scripted(set, "dina", problem, "10:00", [
      ["AC", 20],
      ["WA", 0],
      ["WA", 0],
      ["WA", 0],
    ]); // 20
    await scripted(set, "dina", problem, "11:00", [
      ["WA", 0],
      ["WA", 0],
      ["AC", 0],
      ["AC", 50],
    ]); // 50
    await scripted(set, "erik", problem, "10:30", [
      ["AC", 20],
      ["AC", 30],
      ["WA", 0],
      ["AC", 0],
    ]); // 50
    await scripted(set, "fay", problem, "10:10", [
      ["AC", 20],
      ["WA", 0],
      ["AC", 0],
      ["AC", 50],
    ]); // 70
    const ioi = await board(set, cast.admin.token);
    expect(submitted(ioi).map((r: any) => [r.rank, named(r.username), r.total, r.cells[0].subtasks])).toEqual([
      [1, "dina", 70, [20, 0, 50]],
      [1, "fay", 70, [20, 0, 50]],
      [3, "erik", 50, [20, 30, 0]],
    ]);
  });

  test("OI: sealed to students before the end, their own records too; the last submission counts after", async () => {
    const set = await makeSet("OI round", { scoreboardRule: "oi", lockAt: "2099-01-01T00:00:00Z" }, [problem]);
    const good = await scripted(set, "dina", problem, "10:00", [
      ["AC", 20],
      ["AC", 30],
      ["AC", 0],
      ["AC", 50],
    ]);
    await scripted(set, "dina", problem, "11:00", [
      ["AC", 20],
      ["WA", 0],
      ["WA", 0],
      ["WA", 0],
    ]);
    const dina = students.get("dina")!.token;
    const sealed = await board(set, dina);
    expect(sealed.sealed).toBe(true);
    expect(submitted(sealed)[0].cells[0]).toMatchObject({ state: "pending", score: 0, pending: 1 });
    const record = (await t.api.get(`${domain()}/records/${good}`, { token: dina })).body.data;
    expect(record).toMatchObject({ state: "judging", score: 0, timeMs: 0, cases: [], history: [] });
    const list = (await t.api.get(`${domain()}/records?problemSet=${set}`, { token: dina })).body.data.results;
    expect(list.map((r: any) => [r.state, r.score])).toEqual([
      ["judging", 0],
      ["judging", 0],
    ]);
    const inSet = (await t.api.get(`${domain()}/problem_sets/${set}/problems`, { token: dina })).body.data.results;
    expect(inSet[0].latestRecord.state).toBe("judging");
    // Staff see everything; at the end, everyone does, and the last submission counts (20).
    expect((await board(set, cast.admin.token)).rows[0].cells[0]).toMatchObject({ score: 20, state: "rejected" });
    await t.api.patch(`${domain()}/problem_sets/${set}`, { lockAt: at("14:00") }, { token: cast.admin.token });
    await Bun.sleep(2_100); // the sets' rules are trusted for two seconds in a process (oi-sealing.ts)
    const open = await board(set, dina);
    expect(open.sealed).toBe(false);
    expect(open.rows[0].cells[0]).toMatchObject({ score: 20, rawScore: 20, state: "rejected" });
    expect((await t.api.get(`${domain()}/records/${good}`, { token: dina })).body.data).toMatchObject({
      state: "accepted",
      score: 100,
    });
  });
});

describe("homework: late penalties and an extension", () => {
  test("a late score is multiplied by its step, raw beside it; an extended student is on time", async () => {
    const problem = await judgeableProblem(t, cast);
    const steps = [
      { after: "24h", factor: 0.5 },
      { after: "0h", factor: 0.8 },
    ];
    const set = await makeSet("HW 3", { latePenalty: steps }, [problem]);
    await scripted(set, "alice", problem, "13:00", [
      ["AC", 50],
      ["WA", 0],
    ]); // on time: 50
    await scripted(set, "alice", problem, "15:00", ac); // late: 80
    await scripted(set, "bob", problem, "15:00", ac); // extended to 16:00: 100
    await scripted(set, "carol", problem, "14:00", [
      ["AC", 33],
      ["WA", 0],
    ]); // at the due instant: 26.4
    const extension = await t.api.put(
      `${domain()}/problem_sets/${set}/extensions/${students.get("bob")!.user.id}`,
      { dueAt: at("16:00") },
      { token: cast.admin.token },
    );
    expect(extension.body.errorCode).toBe("Success");
    // The due time in another zone: 22:00 in Shanghai is 14:00 UTC, carol's submission instant.
    const window = { dueAt: "2026-03-01T22:00:00+08:00", lockAt: "2099-01-01T00:00:00Z" };
    const edited = await t.api.patch(`${domain()}/problem_sets/${set}`, window, { token: cast.admin.token });
    expect(edited.body.data.latePenalty).toEqual([...steps].reverse());
    const hw = await board(set, cast.admin.token);
    const rows = submitted(hw).map((r: any) => [named(r.username), r.totalScore, r.cells[0].rawScore, r.cells[0].late]);
    expect(rows).toEqual([
      ["bob", 100, 100, false],
      ["alice", 80, 100, true],
      ["carol", 26.4, 33, true],
    ]);
  });

  test("bad rules are 422s at their fields and change nothing", async () => {
    const set = await makeSet("HW 4", {}, []);
    for (const [body, loc] of [
      [{ scoreboardRule: "acm" }, "scoreboardRule"],
      [{ penaltyMinutes: -1 }, "penaltyMinutes"],
      [{ penaltyVerdicts: ["accepted"] }, "penaltyVerdicts"],
      [{ latePenalty: [{ after: "tomorrow", factor: 0.5 }] }, "latePenalty"],
      [{ latePenalty: [{ after: "1h", factor: 1.5 }] }, "latePenalty"],
      [{ freezeAt: "not a time" }, "freezeAt"],
    ] as const) {
      const refused = await t.api.patch(`${domain()}/problem_sets/${set}`, body, { token: cast.admin.token });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain(loc);
    }
    const unchanged = (await t.api.get(`${domain()}/problem_sets/${set}`, { token: cast.admin.token })).body.data;
    expect(unchanged).toMatchObject({ scoreboardRule: "best", penaltyMinutes: 20, latePenalty: [], freezeAt: null });
  });
});
