import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { rankBoard } from "../../src/modules/scoreboard/board-rank";
import { participantsOf } from "../../src/modules/scoreboard/board-people";
import {
  type BoardRecord,
  type BoardRule,
  type BoardSettings,
  DEFAULT_PENALTY_VERDICTS,
} from "../../src/modules/scoreboard/board-rules";
import { lateFactor, lateRules } from "../../src/modules/problem-sets/late-penalty";

// Each rule against boards computed by hand (docs/contests.md): the numbers in the comments are the sums.

const at = (hhmm: string, day = "2026-03-01") => new Date(`${day}T${hhmm}:00Z`);
const PROBLEMS = [{ id: "A" }, { id: "B" }, { id: "C" }];
let serial = 0;
const rec = (user: string, problem: string, time: string, state: string, extra: Partial<BoardRecord> = {}) => ({
  id: `r${String(++serial).padStart(4, "0")}`,
  userId: user,
  username: user,
  problemId: problem,
  state: state === "AC" ? "accepted" : state === "pending" ? "judging" : "rejected",
  score: state === "AC" ? 100 : 0,
  verdict: { AC: null, WA: "wrong_answer", CE: "compile_error", TLE: "time_limit_exceeded", RTE: "runtime_error" }[
    state
  ] as string | null,
  createdAt: at(time),
  units: null,
  ...extra,
});
const settingsFor = (rule: BoardRule, extra: Partial<BoardSettings> = {}): BoardSettings => ({
  rule,
  startAt: at("09:00"),
  unlockAt: at("09:00"),
  dueAt: at("14:00"),
  lockAt: at("14:00"),
  penaltyMinutes: 20,
  penaltyVerdicts: new Set(DEFAULT_PENALTY_VERDICTS),
  freezeAt: null,
  unfrozenAt: null,
  latePenalty: [],
  own: new Map(),
  ...extra,
});
const viewer = (userId: string, manages = false, now = at("14:30")) => ({ userId, manages, now });
const summary = (board: ReturnType<typeof rankBoard>) =>
  board.rows.map((r) => [r.rank, r.username, r.solved, r.penalty]);

describe("ICPC", () => {
  const contest = [
    rec("alice", "A", "09:10", "WA"),
    rec("alice", "A", "09:25", "AC"), // 25 + 20
    rec("alice", "B", "10:00", "CE"), // a compile error costs nothing
    rec("alice", "B", "10:30", "AC"), // 90
    rec("alice", "C", "13:30", "AC"), // 270, after the freeze
    rec("bob", "A", "09:20", "AC"), // 20: first to solve A
    rec("bob", "B", "11:00", "TLE"),
    rec("bob", "B", "11:05", "RTE"),
    rec("bob", "B", "11:30", "AC"), // 150 + 40
    rec("bob", "C", "12:00", "WA"),
    rec("bob", "C", "13:40", "AC"), // 280 + 20, after the freeze
    rec("carol", "A", "09:45", "AC"), // 45
    rec("carol", "B", "10:30", "AC"), // 90: solved B at the same instant as alice
    rec("carol", "C", "13:00", "AC"), // 240, at the freeze instant: frozen
  ];
  const frozenAt = settingsFor("icpc", { freezeAt: at("13:00") });

  test("staff see the live board: solved, then penalty; first to solve marked, ties at an instant both", () => {
    const board = rankBoard(contest, PROBLEMS, frozenAt, viewer("staff", true));
    expect(summary(board)).toEqual([
      [1, "carol", 3, 45 + 90 + 240],
      [2, "alice", 3, 45 + 90 + 270],
      [3, "bob", 3, 20 + 190 + 300],
    ]);
    expect(board.frozen).toBe(false);
    const first = board.rows.flatMap((r) =>
      r.cells.filter((c) => c.firstToSolve).map((c) => `${r.username}:${c.problemId}`),
    );
    expect(first.sort()).toEqual(["alice:B", "bob:A", "carol:B", "carol:C"]);
    const bobB = board.rows[2].cells[1];
    expect(bobB).toMatchObject({ attempts: 3, pending: 0, penaltyMinutes: 190, state: "accepted" });
  });

  test("a student sees others frozen from the freeze instant on, and always their own results", () => {
    const bob = rankBoard(contest, PROBLEMS, frozenAt, viewer("bob"));
    expect(bob.frozen).toBe(true);
    // alice and carol: A and B only (135 each): tied, sharing rank 2.
    expect(summary(bob)).toEqual([
      [1, "bob", 3, 510],
      [2, "alice", 2, 135],
      [2, "carol", 2, 135],
    ]);
    const carolC = bob.rows[2].cells[2];
    expect(carolC).toMatchObject({ state: "pending", attempts: 1, pending: 1, penaltyMinutes: null, score: 0 });
    expect(rankBoard(contest, PROBLEMS, frozenAt, viewer("alice")).rows.map((r) => r.username)).toEqual([
      "alice",
      "carol",
      "bob",
    ]);
    // Unfrozen: the live board for everyone.
    const unfrozen = { ...frozenAt, unfrozenAt: at("15:00") };
    expect(summary(rankBoard(contest, PROBLEMS, unfrozen, viewer("bob", false, at("15:01"))))[0]).toEqual([
      1,
      "carol",
      3,
      375,
    ]);
  });

  test("a rejudge that accepts an earlier submission moves the solve, its penalty and the attempts", () => {
    const rejudged = contest.map((r) =>
      r.userId === "alice" && r.createdAt.getTime() === at("09:10").getTime()
        ? { ...r, state: "accepted", score: 100, verdict: null }
        : r,
    );
    const alice = rankBoard(rejudged, PROBLEMS, frozenAt, viewer("staff", true)).rows.find(
      (r) => r.username === "alice",
    )!;
    expect(alice.cells[0]).toMatchObject({ penaltyMinutes: 10, attempts: 1 });
    expect(alice.penalty).toBe(10 + 90 + 270);
  });

  test("which verdicts cost a penalty is the set's: compile errors too, when it says so", () => {
    const strict = { ...frozenAt, penaltyVerdicts: new Set([...DEFAULT_PENALTY_VERDICTS, "compile_error"]) };
    const alice = rankBoard(contest, PROBLEMS, strict, viewer("staff", true)).rows.find((r) => r.username === "alice")!;
    expect(alice.cells[1].penaltyMinutes).toBe(90 + 20);
  });

  test("ranks: equal keys share a rank, the next rank skips; sorted by solved then penalty", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            user: fc.constantFrom("u1", "u2", "u3", "u4"),
            problem: fc.constantFrom("A", "B", "C"),
            minute: fc.integer({ min: 0, max: 299 }),
            verdict: fc.constantFrom("AC", "WA", "CE", "TLE"),
          }),
          { maxLength: 40 },
        ),
        (subs) => {
          const records = subs
            .map((s) =>
              rec(
                s.user,
                s.problem,
                `${String(9 + Math.floor(s.minute / 60)).padStart(2, "0")}:${String(s.minute % 60).padStart(2, "0")}`,
                s.verdict,
              ),
            )
            .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
          const rows = rankBoard(records, PROBLEMS, settingsFor("icpc"), viewer("staff", true)).rows;
          for (const [i, row] of rows.entries()) {
            if (i === 0) expect(row.rank).toBe(1);
            else {
              const prev = rows[i - 1];
              expect(prev.solved > row.solved || (prev.solved === row.solved && prev.penalty <= row.penalty)).toBe(
                true,
              );
              const tied = prev.solved === row.solved && prev.penalty === row.penalty;
              expect(row.rank).toBe(tied ? prev.rank : i + 1);
            }
          }
        },
      ),
    );
  });
});

describe("IOI", () => {
  test("the best of each subtask over all submissions, summed; ties share a rank", () => {
    const records = [
      // Subtasks worth 20, 30, 50: two partial solutions that add up to 70.
      rec("dina", "A", "10:00", "WA", { score: 20, units: [20, 0, 0] }),
      rec("dina", "A", "11:00", "WA", { score: 50, units: [0, 0, 50] }),
      rec("erik", "A", "10:30", "WA", { score: 50, units: [20, 30, 0] }),
      rec("erik", "B", "10:40", "AC", { units: null }),
      rec("fay", "A", "10:10", "WA", { score: 70, units: [20, 0, 50] }),
    ];
    const board = rankBoard(records, PROBLEMS, settingsFor("ioi"), viewer("staff", true));
    expect(board.rows.map((r) => [r.rank, r.username, r.total])).toEqual([
      [1, "erik", 150],
      [2, "dina", 70],
      [2, "fay", 70],
    ]);
    expect(board.rows[1].cells[0]).toMatchObject({ score: 70, rawScore: 50, subtasks: [20, 0, 50], state: "rejected" });
  });
});

describe("OI", () => {
  const records = [
    rec("gus", "A", "10:00", "AC"),
    rec("gus", "A", "13:59", "WA"), // the last before the end counts: 0
    rec("hal", "A", "11:00", "WA"),
    rec("hal", "A", "12:00", "AC"),
    rec("hal", "A", "14:10", "WA", { userId: "hal" }), // after the end (a manager's test): not counted
  ];

  test("before the end nobody but staff sees a result, their own neither; after it, the last submission", () => {
    const sealed = rankBoard(records, PROBLEMS, settingsFor("oi"), viewer("gus", false, at("13:00")));
    expect(sealed.sealed).toBe(true);
    expect(sealed.rows.every((r) => r.cells.every((c) => c.state === "pending" && c.score === 0))).toBe(true);
    const after = rankBoard(records, PROBLEMS, settingsFor("oi"), viewer("gus", false, at("14:00")));
    expect(after.sealed).toBe(false);
    expect(after.rows.map((r) => [r.rank, r.username, r.total])).toEqual([
      [1, "hal", 100],
      [2, "gus", 0],
    ]);
  });
});

describe("homework: late penalties and extensions", () => {
  const steps = lateRules([
    { after: "24h", factor: 0.5 },
    { after: "0h", factor: 0.8 },
    { after: "soon", factor: 0 },
  ]);
  test("the step that has begun applies; exactly at the due time is late; before, nothing", () => {
    const due = at("14:00");
    expect(lateFactor(steps, due, at("13:59"))).toBe(1);
    expect(lateFactor(steps, due, due)).toBe(0.8);
    expect(lateFactor(steps, due, at("13:59", "2026-03-02"))).toBe(0.8);
    expect(lateFactor(steps, due, at("14:00", "2026-03-02"))).toBe(0.5);
    expect(lateFactor(steps, null, at("14:00", "2026-03-09"))).toBe(1);
  });

  test("best counts the penalised score, shows the raw one; an extension moves one student's due time", () => {
    const records = [
      rec("ivy", "A", "13:00", "WA", { score: 70 }),
      rec("ivy", "A", "15:00", "AC"), // late: 80, better than 70
      rec("jon", "A", "15:00", "AC"), // extended to 16:00: not late, 100
      rec("kim", "A", "14:00", "WA", { score: 33 }), // at the due instant: 26.4
    ];
    const own = new Map([["jon", { dueAt: at("16:00"), lockAt: null }]]);
    const board = rankBoard(records, PROBLEMS, settingsFor("best", { latePenalty: steps, own }), viewer("staff", true));
    expect(board.rows.map((r) => [r.username, r.totalScore])).toEqual([
      ["jon", 100],
      ["ivy", 80],
      ["kim", 26.4],
    ]);
    expect(board.rows[1].cells[0]).toMatchObject({ score: 80, rawScore: 100, late: true });
    expect(board.rows[0].cells[0]).toMatchObject({ late: false });
  });
});

describe("who is on the board: every participant a row, no one else's records", () => {
  test("the rule: members whose role submits and does not manage sets, and record holders no longer members", () => {
    const members = [
      { user_id: "amy", username: "amy", participant: true },
      { user_id: "ta", username: "ta", participant: false },
      { user_id: "watcher", username: "watcher", participant: false },
    ];
    const held = [
      { userId: "ta", username: "ta" },
      { userId: "gone", username: "gone" },
      { userId: "gone", username: "gone" },
    ];
    expect([...participantsOf(members, held).keys()]).toEqual(["amy", "gone"]);
    expect([...participantsOf(members, held, true).keys()]).toEqual(["amy", "ta", "watcher", "gone"]);
  });

  // amy solved A; ben tried A and failed; cid and dee never submitted; the TA's accepted test is no row.
  const records = [
    rec("amy", "A", "09:30", "AC"),
    rec("ben", "A", "09:40", "WA"),
    rec("ta", "A", "09:05", "AC"),
    rec("ta", "B", "09:06", "AC"),
  ];
  const people = new Map(["dee", "cid", "ben", "amy"].map((name) => [name, name]));
  const ranked = (rule: BoardRule) =>
    rankBoard(records, PROBLEMS, settingsFor(rule), viewer("staff", true), people).rows.map((r) => [
      r.rank,
      r.username,
      r.total,
      r.cells.length,
    ]);

  test("ICPC: those who never submitted rank with those who solved nothing, after the solvers, by name", () => {
    expect(ranked("icpc")).toEqual([
      [1, "amy", 1, 1],
      [2, "ben", 0, 1],
      [2, "cid", 0, 0],
      [2, "dee", 0, 0],
    ]);
    // The TA's first solve is not the first to solve: amy's is.
    const board = rankBoard(records, PROBLEMS, settingsFor("icpc"), viewer("staff", true), people);
    expect(board.rows[0].cells[0]).toMatchObject({ firstToSolve: true, solvedMinute: 30 });
  });

  test("homework and IOI: a row with no score, tied with zero; homework lists those who reached it first", () => {
    expect(ranked("best")).toEqual([
      [1, "amy", 100, 1],
      [2, "ben", 0, 1],
      [2, "cid", 0, 0],
      [2, "dee", 0, 0],
    ]);
    expect(ranked("ioi")).toEqual(ranked("oi"));
    expect(ranked("ioi")).toEqual([
      [1, "amy", 100, 1],
      [2, "ben", 0, 1],
      [2, "cid", 0, 0],
      [2, "dee", 0, 0],
    ]);
  });

  test("homework: within a tie of nothing, a row that submitted comes before one that never did", () => {
    const board = rankBoard(
      [rec("zed", "A", "09:40", "WA")],
      PROBLEMS,
      settingsFor("last"),
      viewer("staff", true),
      new Map([
        ["abe", "abe"],
        ["zed", "zed"],
      ]),
    );
    expect(board.rows.map((r) => [r.rank, r.username])).toEqual([
      [1, "zed"],
      [1, "abe"],
    ]);
  });
});
