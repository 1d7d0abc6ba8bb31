import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType, Value } from "@sinclair/typebox/value";
import {
  CCS_ENDPOINT_SCHEMAS,
  CCS_ID,
  CCS_POS_RELTIME,
  CCS_RELTIME,
  CCS_TIME,
  type CcsClarification,
  type CcsContest,
  CcsEvent,
  type CcsJudgement,
  type CcsJudgementType,
  type CcsLanguage,
  CcsList,
  type CcsProblem,
  type CcsRun,
  type CcsScoreboard,
  type CcsState,
} from "../../src/modules/ccs/ccs.schemas";

// Checks of our CCS Contest API's answers, each a list of "path: message" (empty when the answer is right), so a
// failing test shows every problem at once. Paths are JSON pointers, as TypeBox's.

type Contest = typeof CcsContest.static;
export type State = typeof CcsState.static;
type Scoreboard = typeof CcsScoreboard.static;

/** Every way `value` breaks `schema`. */
export function ccsProblems(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].flatMap(describe);
}

// A union only says "Expected union value"; the variant that came closest says what is wrong. Ties go to the
// first variant, which for our nullable properties is the value rather than null.
function describe(error: ValueError): string[] {
  const line = `${error.path}: ${message(error)}`;
  if (error.type !== ValueErrorType.Union || error.errors.length === 0) return [line];
  const variants = error.errors.map((iterator) => [...iterator]);
  const closest = variants.reduce((best, next) => (next.length < best.length ? next : best));
  return [line, ...closest.flatMap(describe)];
}

const PATTERN_NAMES: Record<string, string> = {
  [CCS_TIME]: "TIME",
  [CCS_RELTIME]: "RELTIME",
  [CCS_POS_RELTIME]: "RELTIME without a sign",
  [CCS_ID]: "ID",
};

// TypeBox spells out a pattern in full and says only "Expected kind 'UnionEnum'" for Elysia's enums.
function message(error: ValueError): string {
  const got = JSON.stringify(error.value);
  const pattern = PATTERN_NAMES[error.schema.pattern];
  if (error.type === ValueErrorType.StringPattern && pattern) return `Expected a ${pattern}, got ${got}`;
  if (Array.isArray(error.schema.enum)) return `Expected one of ${error.schema.enum.join(", ")}, got ${got}`;
  return error.message;
}

/** What the contest schema cannot say: how penalties and freezes fit the scoreboard type and the duration. */
export function contestRules(contest: Contest): string[] {
  const problems: string[] = [];
  if (contest.scoreboard_type === "pass-fail" && contest.penalty_time === undefined) {
    problems.push("/penalty_time: required when scoreboard_type is pass-fail");
  }
  const freeze = contest.scoreboard_freeze_duration;
  if (freeze !== undefined && relTimeMs(freeze) > relTimeMs(contest.duration)) {
    problems.push("/scoreboard_freeze_duration: longer than the contest's duration");
  }
  return problems;
}

/** The spec: a judgement type's `penalty` is there exactly when the contest has a penalty_time. */
export function judgementTypeRules(type: typeof CcsJudgementType.static, contest: Contest): string[] {
  if ((type.penalty === undefined) === (contest.penalty_time === undefined)) return [];
  return [`/penalty: ${type.penalty === undefined ? "required" : "not allowed"} when the contest's penalty_time is`];
}

export function languageRules(language: typeof CcsLanguage.static): string[] {
  if (language.entry_point_required === (language.entry_point_name !== undefined)) return [];
  return language.entry_point_required
    ? ["/entry_point_name: required when entry_point_required is true"]
    : ["/entry_point_name: only for a language that requires an entry point"];
}

export function problemRules(problem: typeof CcsProblem.static, contest: Contest): string[] {
  const problems = milliseconds("/time_limit", problem.time_limit);
  if ((contest.scoreboard_type === "score") !== (problem.max_score !== undefined)) {
    problems.push("/max_score: present exactly when scoreboard_type is score");
  }
  return problems;
}

/** A judgement is either running (no verdict, no end) or done (verdict and both ends): never half of each. */
export function judgementRules(judgement: typeof CcsJudgement.static, contest?: Contest): string[] {
  const ends = [judgement.judgement_type_id, judgement.end_time, judgement.end_contest_time];
  const problems = milliseconds("/max_run_time", judgement.max_run_time);
  const present = ends.filter((value) => value !== undefined && value !== null).length;
  if (present !== 0 && present !== ends.length) {
    problems.push(": judgement_type_id, end_time and end_contest_time must be all present or all absent");
  }
  if (judgement.end_time && relTimeMs(judgement.end_contest_time ?? "") < relTimeMs(judgement.start_contest_time)) {
    problems.push("/end_contest_time: before start_contest_time");
  }
  if (contest && (contest.scoreboard_type === "score") !== (judgement.score !== undefined)) {
    problems.push("/score: present exactly when scoreboard_type is score");
  }
  return problems;
}

export function runRules(run: typeof CcsRun.static): string[] {
  return milliseconds("/run_time", run.run_time);
}

/** "At least one of from_team_id and to_team_id has to be null. That is, teams cannot send messages to other teams." */
export function clarificationRules(clarification: typeof CcsClarification.static): string[] {
  return clarification.from_team_id !== null && clarification.to_team_id !== null
    ? ["/to_team_id: null when from_team_id is not"]
    : [];
}

const STATE_ORDER = [
  ["started", "frozen", "ended", "thawed", "end_of_updates"],
  ["started", "ended", "finalized", "end_of_updates"],
] as const;
// Each may be set only after the one it names; end_of_updates must be the very last change.
const STATE_NEEDS = {
  frozen: "started",
  ended: "started",
  thawed: "frozen",
  finalized: "ended",
  end_of_updates: "finalized",
} as const;

/** The spec's order of a contest's life; equal times are let through (a freeze of the whole contest). */
export function stateRules(state: State, path = ""): string[] {
  const problems: string[] = [];
  for (const [key, needed] of Object.entries(STATE_NEEDS)) {
    if (state[key as keyof State] !== null && state[needed] === null)
      problems.push(`${path}/${key}: set before ${needed}`);
  }
  if (state.end_of_updates !== null && state.frozen !== null && state.thawed === null) {
    problems.push(`${path}/end_of_updates: set while the board is still frozen`);
  }
  for (const chain of STATE_ORDER) {
    const set = chain.filter((key) => state[key] !== null);
    for (let i = 1; i < set.length; i++) {
      if (timeMs(state[set[i]]!) < timeMs(state[set[i - 1]]!)) {
        problems.push(`${path}/${set[i]}: earlier than ${set[i - 1]}`);
      }
    }
  }
  return problems;
}

/** Ranks in order, one kind of score throughout, and cells whose `time` matches their result. */
export function scoreboardRules(scoreboard: Scoreboard): string[] {
  const problems = stateRules(scoreboard.state, "/state");
  const passFail = scoreboard.rows.length > 0 && "num_solved" in scoreboard.rows[0].score;
  scoreboard.rows.forEach((row, r) => {
    const at = `/rows/${r}`;
    if (r === 0 && row.rank !== 1) problems.push(`${at}/rank: the first row is not ranked 1`);
    if (r > 0 && row.rank < scoreboard.rows[r - 1].rank) problems.push(`${at}/rank: lower than the row above`);
    if ("num_solved" in row.score !== passFail) problems.push(`${at}/score: not the same kind as the first row's`);
    if ("num_solved" in row.score) {
      const solved = row.problems.filter((cell) => "solved" in cell && cell.solved).length;
      if (row.score.num_solved !== solved) problems.push(`${at}/score/num_solved: ${solved} cells are solved`);
      if ((row.score.time !== undefined) !== row.score.num_solved > 0) {
        problems.push(`${at}/score/time: present exactly when num_solved > 0`);
      }
    }
    row.problems.forEach((cell, c) => {
      const scored = "solved" in cell ? cell.solved : cell.score > 0;
      if ("solved" in cell !== passFail) problems.push(`${at}/problems/${c}: not the same kind as the row's score`);
      if ((cell.time !== undefined) !== scored) {
        problems.push(`${at}/problems/${c}/time: present exactly when ${"solved" in cell ? "solved" : "score > 0"}`);
      }
    });
  });
  return problems;
}

/** One feed line: its envelope, its data against the endpoint it updates, and how `id` and `data` agree. */
export function eventProblems(line: unknown): string[] {
  const problems = ccsProblems(CcsEvent, line);
  if (problems.length > 0) return problems;
  const event = line as typeof CcsEvent.static;
  const single = CCS_ENDPOINT_SCHEMAS[event.type];
  if (Array.isArray(event.data)) {
    // A whole collection; contest and state are single objects and never come as one.
    if (event.id !== null) problems.push("/id: must be null when data is a whole collection");
    if (event.type === "contest" || event.type === "state") problems.push(`/data: ${event.type} is no collection`);
    else problems.push(...ccsProblems(CcsList(single), event.data).map((p) => `/data${p}`));
  } else if (event.data !== null) {
    problems.push(...ccsProblems(single, event.data).map((p) => `/data${p}`));
    const dataId = (event.data as { id?: unknown }).id;
    if (event.type === "contest" || event.type === "state") {
      if (event.id !== null) problems.push(`/id: must be null for ${event.type}`);
    } else if (event.id !== dataId) problems.push(`/id: ${event.id} but data.id is ${String(dataId)}`);
  } else if (event.id === null) {
    problems.push("/data: a deletion names the object it deletes");
  }
  return problems;
}

function milliseconds(path: string, seconds: number | null | undefined): string[] {
  if (seconds === null || seconds === undefined) return [];
  // Seconds as we send them, ms / 1000: within float error of a whole number of milliseconds.
  return Math.abs(seconds * 1000 - Math.round(seconds * 1000)) < 1e-6 ? [] : [`${path}: not whole milliseconds`];
}

/** A RELTIME in milliseconds (NaN for something else). */
export function relTimeMs(text: string): number {
  const m = /^(-?)(\d+):(\d\d):(\d\d)(?:\.(\d{3}))?$/.exec(text);
  if (!m) return Number.NaN;
  const ms = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1000 + Number(m[5] ?? 0);
  return m[1] ? -ms : ms;
}

// Date.parse reads an offset only as ±hh:mm; the spec also allows ±hh.
function timeMs(text: string): number {
  return Date.parse(text.replace(/([+-]\d\d)$/, "$1:00"));
}
