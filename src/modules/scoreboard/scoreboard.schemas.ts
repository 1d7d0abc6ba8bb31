import { t } from "elysia";
import { Choice, DateTime, Envelope, Uuid, OutInt } from "../../http/schemas";

/** The board's answer (extension; docs/contests.md "The board's fields"): today's fields, and each rule's. */

const Score = t.Number({ description: "to the hundredth: a late penalty may make a fraction" });
const ScoreboardCell = t.Object(
  {
    problemId: Uuid,
    score: t.Number({ description: "what counts: after any late penalty (IOI: the subtasks' best, summed)" }),
    rawScore: t.Number({ description: "the counted record's score before any late penalty" }),
    state: t.String({ description: "accepted, rejected, or pending when no result is shown" }),
    recordId: t.Nullable(Uuid),
    late: t.Boolean(),
    submittedAt: t.Nullable(DateTime),
    submissions: OutInt({ description: "judged submissions whose result the caller sees" }),
    attempts: OutInt({ description: "submissions that count (ICPC: up to the first accepted one)" }),
    pending: OutInt({ description: "attempts whose result is hidden (frozen, sealed) or not judged yet" }),
    penaltyMinutes: t.Nullable(OutInt({ description: "ICPC, a solved problem: minutes to solve + penalties" })),
    solvedMinute: t.Nullable(OutInt({ description: "ICPC, a solved problem: minutes from the start to the solve" })),
    firstToSolve: t.Boolean({ description: "ICPC: the first accepted submission of this problem" }),
    subtasks: t.Nullable(t.Array(Score, { description: "IOI: the best score of each subtask" })),
  },
  { title: "ScoreboardCell" },
);

export const Scoreboard = t.Object(
  {
    problemSetId: Uuid,
    rule: t.UnionEnum(["best", "last", "icpc", "ioi", "oi"]),
    frozen: t.Boolean({ description: "others' results after freezeAt are hidden from the caller" }),
    sealed: t.Boolean({ description: "OI before the end: every result is hidden from the caller" }),
    freezeAt: t.Nullable(DateTime),
    penaltyMinutes: OutInt(),
    problems: t.Array(t.Object({ id: Uuid, url: t.String(), title: t.String() })),
    rows: t.Array(
      t.Object({
        rank: OutInt({ description: "shared on ties" }),
        userId: Uuid,
        username: t.String(),
        totalScore: Score,
        accepted: OutInt(),
        solved: OutInt({ description: "ICPC: problems solved; otherwise problems accepted" }),
        penalty: OutInt({ description: "ICPC: penalty minutes in all" }),
        total: Score,
        cells: t.Array(ScoreboardCell, {
          description: "the problems with a submission, in the set's order (`problemId` says which)",
        }),
      }),
    ),
  },
  { title: "Scoreboard" },
);
export type ScoreboardView = typeof Scoreboard.static;

export const ScoreboardQuery = t.Object({
  // Choice: a UnionEnum would default to its one value, and Elysia writes defaults into the query.
  view: t.Optional(
    Choice(["public"], {
      description: "public: the board as participants see it (frozen, sealed), for staff's projector",
    }),
  ),
});
/** The grade book's query: staff rows (the teacher, TAs, whoever manages sets) beside the students' on demand. */
export const GradesQuery = t.Object({
  staff: t.Optional(
    t.Boolean({ default: false, description: "true: a row for every member, staff included (staff callers only)" }),
  ),
});
export const ScoreboardResp = Envelope(Scoreboard, "ScoreboardResp");
