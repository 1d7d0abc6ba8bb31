import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import fc from "fast-check";
import * as ccs from "../../src/modules/ccs/ccs.schemas";
import * as check from "../helpers/ccs-validate";

// Hand-written answers of our CCS API for one contest, then the same broken one way at a time.

const contest = {
  id: "pc2026",
  name: "Programming Contest 2026",
  formal_name: "The 2026 Programming Contest of the School of Computing",
  start_time: "2026-11-26T02:00:00.000Z",
  duration: "5:00:00.000",
  scoreboard_freeze_duration: "1:00:00.000",
  scoreboard_type: "pass-fail" as const,
  penalty_time: 20,
};
const state = {
  started: "2026-11-26T02:00:00.000Z",
  frozen: "2026-11-26T06:00:00.000Z",
  ended: null,
  thawed: null,
  finalized: null,
  end_of_updates: null,
};
const team = { id: "t07", name: "清华大学 紫荆队", label: "7", organization_id: "thu", group_ids: ["undergrad"] };
const language = {
  id: "python3",
  name: "Python 3",
  entry_point_required: true,
  entry_point_name: "Main file",
  extensions: ["py"],
};
const problem = {
  id: "a-plus-b",
  label: "A",
  name: "A + B",
  ordinal: 0,
  rgb: "#ac00ff",
  time_limit: 1.5,
  test_data_count: 12,
};
const submission = {
  id: "1047",
  language_id: "python3",
  problem_id: "a-plus-b",
  team_id: "t07",
  time: "2026-11-26T02:17:42.318Z",
  contest_time: "0:17:42.318",
  entry_point: null,
  files: [{ href: "contests/pc2026/submissions/1047/files", filename: "files.zip", mime: "application/zip" }],
};
const judgement = {
  id: "j1047",
  submission_id: "1047",
  judgement_type_id: "WA",
  start_time: "2026-11-26T02:17:43.002Z",
  start_contest_time: "0:17:43.002",
  end_time: "2026-11-26T02:17:45.914Z",
  end_contest_time: "0:17:45.914",
  max_run_time: 0.312,
};
const scoreboard = {
  time: "2026-11-26T02:42:00.120Z",
  contest_time: "0:42:00.120",
  state,
  rows: [
    {
      rank: 1,
      team_id: "t12",
      score: { num_solved: 1, total_time: 41, time: 21 },
      problems: [
        { problem_id: "a-plus-b", num_judged: 2, num_pending: 0, solved: true, time: 21 },
        { problem_id: "bracelet", num_judged: 0, num_pending: 1, solved: false },
      ],
    },
    { rank: 2, team_id: "t07", score: { num_solved: 0, total_time: 0 }, problems: [] },
  ],
};

const good: [string, TSchema, unknown][] = [
  ["api", ccs.CcsApiInfo, { version: "2023-06", version_url: "https://ccs-specs.icpc.io/2023-06/contest_api" }],
  ["access", ccs.CcsAccess, { capabilities: [], endpoints: [{ type: "teams", properties: ["id", "name", "label"] }] }],
  ["contest", ccs.CcsContest, contest],
  ["a contest not yet scheduled", ccs.CcsContest, { ...contest, start_time: null }],
  ["state", ccs.CcsState, state],
  ["judgement type", ccs.CcsJudgementType, { id: "TLE", name: "Time Limit Exceeded", penalty: true, solved: false }],
  ["language", ccs.CcsLanguage, language],
  ["problem", ccs.CcsProblem, problem],
  ["group", ccs.CcsGroup, { id: "undergrad", name: "本科组" }],
  ["organization", ccs.CcsOrganization, { id: "x", name: "École polytechnique", formal_name: "École polytechnique" }],
  ["teams", ccs.CcsList(ccs.CcsTeam), [team, { id: "t12", name: "Équipe Señor Niño", label: "12", hidden: false }]],
  ["submission", ccs.CcsSubmission, submission],
  ["judgement", ccs.CcsJudgement, judgement],
  [
    "a judgement running",
    ccs.CcsJudgement,
    { ...judgement, judgement_type_id: null, end_time: null, end_contest_time: null },
  ],
  [
    "run",
    ccs.CcsRun,
    {
      id: "r1",
      judgement_id: "j1047",
      ordinal: 3,
      judgement_type_id: "WA",
      time: submission.time,
      contest_time: "0:17:45.500",
      run_time: 0.312,
    },
  ],
  ["award", ccs.CcsAward, { id: "first-to-solve-a-plus-b", citation: "First to solve A", team_ids: ["t12"] }],
  ["scoreboard", ccs.CcsScoreboard, scoreboard],
  ["event", ccs.CcsEvent, { type: "teams", id: "t07", data: team, token: "41" }],
];

describe("what our CCS API sends validates", () => {
  test.each(good)("%s", (_name, schema, value) => {
    expect(check.ccsProblems(schema, value)).toEqual([]);
  });

  test("the rules TypeBox cannot say hold for them too", () => {
    expect(check.contestRules(contest)).toEqual([]);
    expect(check.languageRules(language)).toEqual([]);
    expect(check.problemRules(problem, contest)).toEqual([]);
    expect(check.judgementRules(judgement, contest)).toEqual([]);
    expect(check.stateRules(state)).toEqual([]);
    expect(check.scoreboardRules(scoreboard)).toEqual([]);
    expect(check.judgementTypeRules({ id: "AC", name: "正确", penalty: false, solved: true }, contest)).toEqual([]);
  });

  test("event lines: an object, a whole collection, a deletion, the contest", () => {
    expect(check.eventProblems({ type: "teams", id: "t07", data: team })).toEqual([]);
    expect(check.eventProblems({ type: "problems", id: null, data: [problem] })).toEqual([]);
    expect(check.eventProblems({ type: "teams", id: "t07", data: null })).toEqual([]);
    expect(check.eventProblems({ type: "contest", id: null, data: contest })).toEqual([]);
  });

  test("every event type has its endpoint's schema, and the judgement type ids are the spec's 33", () => {
    expect(ccs.CCS_EVENT_TYPES.filter((type) => !ccs.CCS_ENDPOINT_SCHEMAS[type])).toEqual([]);
    expect(new Set(ccs.CCS_JUDGEMENT_TYPE_IDS).size).toBe(33);
  });
});

const paths = (schema: TSchema, value: unknown) => check.ccsProblems(schema, value).map((line) => line.split(":")[0]);

describe("what breaks it fails at the right path", () => {
  test("a property we do not declare", () => {
    expect(check.ccsProblems(ccs.CcsTeam, { ...team, icpc_id: "201433" })).toEqual(["/icpc_id: Unexpected property"]);
    const row = scoreboard.rows[0];
    const cell = { ...row.problems[1], penalty: 20 };
    const board = { ...scoreboard, rows: [{ ...row, problems: [row.problems[0], cell] }] };
    expect(paths(ccs.CcsScoreboard, board)).toContain("/rows/0/problems/1/penalty");
    // 2023-06's published schema has no first_to_solve (check-api.sh refuses it): neither does ours.
    const first = { ...row.problems[0], first_to_solve: true };
    const withFirst = { ...scoreboard, rows: [{ ...row, problems: [first, row.problems[1]] }] };
    expect(paths(ccs.CcsScoreboard, withFirst)).toContain("/rows/0/problems/0/first_to_solve");
  });

  test("a submission without entry_point, or without files: 2023-06's published schema needs both", () => {
    const { entry_point: _entry, ...noEntry } = submission;
    expect(paths(ccs.CcsSubmission, { ...noEntry, language_id: "c" })).toContain("/entry_point");
    const { files: _files, ...noFiles } = submission;
    expect(paths(ccs.CcsSubmission, noFiles)).toContain("/files");
  });

  test("a TIME without the T, the milliseconds or a zone", () => {
    expect(check.ccsProblems(ccs.CcsSubmission, { ...submission, time: "2026-11-26 10:00:00" })).toEqual([
      '/time: Expected a TIME, got "2026-11-26 10:00:00"',
    ]);
    for (const bad of ["2026-11-26T10:00:00Z", "2026-11-26T10:00:00.000", "2026-11-26T10:69:00.000Z"]) {
      expect({ bad, paths: paths(ccs.CcsContest, { ...contest, start_time: bad }) }).toEqual({
        bad,
        paths: ["/start_time", "/start_time"],
      });
    }
  });

  test("a RELTIME without milliseconds, and a negative duration", () => {
    expect(paths(ccs.CcsSubmission, { ...submission, contest_time: "0:17:42" })).toEqual(["/contest_time"]);
    expect(paths(ccs.CcsContest, { ...contest, duration: "-5:00:00.000" })).toEqual(["/duration"]);
  });

  test("an id with a space, of 37 characters, or ending in a dot", () => {
    for (const id of ["team 7", "x".repeat(37), "t07.", "-t07", ".t07", ""]) {
      expect({ id, paths: paths(ccs.CcsTeam, { ...team, id }) }).toEqual({ id, paths: ["/id"] });
    }
    expect(paths(ccs.CcsTeam, { ...team, id: "x".repeat(36) })).toEqual([]);
  });

  test("a judgement with an end_time but no judgement_type_id", () => {
    const halfDone = { ...judgement, judgement_type_id: undefined };
    expect(check.ccsProblems(ccs.CcsJudgement, halfDone)).toEqual([]);
    expect(check.judgementRules(halfDone)).toEqual([
      ": judgement_type_id, end_time and end_contest_time must be all present or all absent",
    ]);
  });

  test("a judgement type the spec does not know, a capability, an endpoint with no properties", () => {
    expect(paths(ccs.CcsJudgementType, { id: "ML", name: "Memory Limit", solved: false })).toEqual(["/id"]);
    const access = { capabilities: ["contest_start"], endpoints: [{ type: "teams", properties: [] }] };
    expect(paths(ccs.CcsAccess, access)).toEqual(["/capabilities", "/endpoints/0/properties"]);
  });

  test("the rules: penalty_time, entry points, cells, the state's order", () => {
    const { penalty_time: _, ...noPenalty } = contest;
    expect(check.contestRules(noPenalty)).toEqual(["/penalty_time: required when scoreboard_type is pass-fail"]);
    expect(check.languageRules({ ...language, entry_point_required: false })).toHaveLength(1);
    expect(check.languageRules({ ...language, entry_point_name: undefined })).toHaveLength(1);
    const row = { ...scoreboard.rows[0], problems: [{ ...scoreboard.rows[0].problems[0], solved: false }] };
    expect(check.scoreboardRules({ ...scoreboard, rows: [row] })).toEqual([
      "/rows/0/score/num_solved: 0 cells are solved",
      "/rows/0/problems/0/time: present exactly when solved",
    ]);
    expect(check.stateRules({ ...state, frozen: "2026-11-26T01:59:59.999Z" })).toEqual([
      "/frozen: earlier than started",
    ]);
    expect(check.stateRules({ ...state, started: null })).toEqual(["/frozen: set before started"]);
  });

  test("event lines whose id and data disagree, or whose data breaks its endpoint", () => {
    expect(check.eventProblems({ type: "teams", id: "t12", data: team })).toEqual(["/id: t12 but data.id is t07"]);
    expect(check.eventProblems({ type: "contest", id: "pc2026", data: contest })).toEqual([
      "/id: must be null for contest",
    ]);
    expect(check.eventProblems({ type: "teams", id: null, data: [{ ...team, name: 7 }] })).toEqual([
      "/data/0/name: Expected string",
    ]);
    expect(check.eventProblems({ type: "persons", id: null, data: [] }).map((line) => line.split(":")[0])).toEqual([
      "/type",
    ]);
  });
});

describe("ccsTime and ccsRelTime", () => {
  test("examples", () => {
    expect(ccs.ccsTime(new Date("2026-11-26T10:00:00+08:00"))).toBe("2026-11-26T02:00:00.000Z");
    expect(ccs.ccsRelTime(0)).toBe("0:00:00.000");
    expect(ccs.ccsRelTime(-0)).toBe("0:00:00.000");
    expect(ccs.ccsRelTime(-1)).toBe("-0:00:00.001");
    expect(ccs.ccsRelTime(1_062_318)).toBe("0:17:42.318");
    expect(ccs.ccsRelTime(125 * 3_600_000 + 61_000.4)).toBe("125:01:01.000");
    expect(() => ccs.ccsRelTime(Number.NaN)).toThrow(RangeError);
  });

  test("property: ccsTime matches TIME and reads back as the same instant", () => {
    const min = new Date("1000-01-01T00:00:00Z");
    const dates = fc.date({ min, max: new Date("2999-12-31T23:59:59.999Z"), noInvalidDate: true });
    fc.assert(
      fc.property(dates, (date) => {
        const text = ccs.ccsTime(date);
        expect(text).toMatch(new RegExp(ccs.CCS_TIME));
        expect(Date.parse(text)).toBe(date.getTime());
      }),
    );
  });

  test("property: ccsRelTime of n ms matches RELTIME and parses back to n", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.maxSafeInteger(), fc.maxSafeNat()), (n) => {
        const text = ccs.ccsRelTime(n);
        expect(text).toMatch(new RegExp(ccs.CCS_RELTIME));
        expect(new RegExp(ccs.CCS_POS_RELTIME).test(text)).toBe(n >= 0);
        expect(check.relTimeMs(text)).toBe(n);
      }),
    );
  });

  test("property: the ID pattern says what the spec's prose says", () => {
    const unit = fc.constantFrom(..."aZ09_.- é");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (id) => {
        const prose =
          id.length >= 1 && id.length <= 36 && /^[a-zA-Z0-9_.-]*$/.test(id) && !/^[-.]/.test(id) && !id.endsWith(".");
        expect(new RegExp(ccs.CCS_ID).test(id)).toBe(prose);
      }),
    );
  });
});
