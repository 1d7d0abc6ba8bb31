import { t } from "elysia";
import {
  Choice,
  DateTime,
  Envelope,
  Int32,
  ListOf,
  PaginationQuery,
  TimestampInput,
  Uuid,
  OutInt,
} from "../../http/schemas";
import { UrlSlug } from "../domains/domains.schemas";
import { LATE_AFTER } from "./late-penalty";
import { RecordPreview } from "../problems/problems.schemas";

const ScoreboardRule = Choice(["best", "last", "icpc", "ioi", "oi"], {
  description: "how the scoreboard counts (extension; docs/contests.md): best, last, icpc, ioi or oi",
});
/** Verdicts an ICPC set may count a penalty for (docs/contests.md "ICPC"). */
export const PENALTY_VERDICTS = [
  "wrong_answer",
  "time_limit_exceeded",
  "memory_limit_exceeded",
  "output_limit_exceeded",
  "runtime_error",
  "canceled",
  "compile_error",
  "system_error",
] as const;
const LateStep = t.Object(
  {
    after: t.String({
      pattern: LATE_AFTER.source,
      description: "after the due time: 0h, 90m, 1.5d, 2w",
    }),
    factor: t.Number({ minimum: 0, maximum: 1, description: "the score is multiplied by it" }),
  },
  { title: "LateStep" },
);

/** A set's contest and homework rules (extensions; docs/contests.md), as a create or an edit gives them. */
const ruleFields = {
  scoreboardRule: t.Optional(ScoreboardRule),
  penaltyMinutes: t.Optional(t.Integer({ minimum: 0, maximum: 1440, description: "icpc: per rejected submission" })),
  penaltyVerdicts: t.Optional(
    t.Nullable(
      t.Array(Choice(PENALTY_VERDICTS), {
        maxItems: PENALTY_VERDICTS.length,
        uniqueItems: true,
        description: "icpc: the verdicts that cost a penalty; null: all but compile errors and judge failures",
      }),
    ),
  ),
  freezeAt: t.Optional(t.Nullable(TimestampInput)),
  latePenalty: t.Optional(
    t.Array(LateStep, { maxItems: 20, description: "late steps after the due time; the latest begun applies" }),
  ),
  runsAllowed: t.Optional(
    t.Boolean({ description: "students may run their programs on their own input or the samples (default true)" }),
  ),
  gradeStages: t.Optional(
    t.Boolean({ description: "the grade book (scoreboard CSV) shows each problem's stage deductions (default false)" }),
  ),
};

const windowFields = {
  unlockAt: t.Optional(t.Nullable(TimestampInput)),
  dueAt: t.Optional(t.Nullable(TimestampInput)),
  lockAt: t.Optional(t.Nullable(TimestampInput)),
};

export const ProblemSetCreate = t.Object(
  {
    url: t.Optional(UrlSlug),
    title: t.String({ minLength: 1, maxLength: 256 }),
    content: t.Optional(t.String({ maxLength: 65536, default: "" })),
    hidden: t.Optional(t.Boolean({ default: false })),
    scoreboardHidden: t.Optional(t.Boolean({ default: false })),
    ...ruleFields,
    ...windowFields,
  },
  { title: "ProblemSetCreate" },
);
export type ProblemSetCreateInput = typeof ProblemSetCreate.static;

export const ProblemSetEdit = t.Object(
  {
    url: t.Optional(t.Nullable(UrlSlug)),
    title: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    content: t.Optional(t.String({ maxLength: 65536 })),
    hidden: t.Optional(t.Boolean()),
    scoreboardHidden: t.Optional(t.Boolean()),
    ...ruleFields,
    ...windowFields,
  },
  { title: "ProblemSetEdit" },
);
export type ProblemSetEditInput = typeof ProblemSetEdit.static;

const setFields = {
  id: Uuid,
  domainId: Uuid,
  url: t.String(),
  title: t.String(),
  content: t.String({ default: "" }),
  hidden: t.Boolean({ default: false }),
  scoreboardHidden: t.Boolean({ default: false }),
  scoreboardRule: ScoreboardRule,
  penaltyMinutes: OutInt({ default: 20 }),
  penaltyVerdicts: t.Nullable(t.Array(t.String())),
  freezeAt: t.Nullable(DateTime),
  unfrozenAt: t.Nullable(DateTime),
  finalizedAt: t.Nullable(DateTime, {
    description: "when staff declared the results final (POST …/scoreboard/finalize; extension), or null",
  }),
  latePenalty: t.Array(LateStep),
  runsAllowed: t.Boolean({
    default: true,
    description: 'runs through this set are allowed (extension, docs/api.md "Runs")',
  }),
  gradeStages: t.Boolean({
    default: false,
    description: 'the scoreboard CSV has a column per problem and stage (extension, docs/config-reference.md "Stages")',
  }),
  dueAt: t.Nullable(DateTime),
  lockAt: t.Nullable(DateTime),
  unlockAt: t.Nullable(DateTime),
  extended: t.Boolean({
    default: false,
    description: "dueAt and lockAt are the caller's own, from an extension they were granted (extension)",
  }),
  numSubmit: OutInt({ default: 0 }),
  numAccept: OutInt({ default: 0 }),
  ownerId: t.Nullable(Uuid),
};
export const ProblemSetSchema = t.Object(setFields, { title: "ProblemSet" });
export type ProblemSetView = typeof ProblemSetSchema.static;

export const ProblemPreviewWithLatestRecord = t.Object(
  {
    id: Uuid,
    url: t.String(),
    title: t.String(),
    hidden: t.Boolean({ default: false }),
    ownerId: t.Nullable(Uuid),
    latestRecord: t.Nullable(RecordPreview),
  },
  { title: "ProblemPreviewWithLatestRecord" },
);
export const ProblemSetDetail = t.Object(
  {
    ...setFields,
    createdAt: DateTime,
    updatedAt: DateTime,
    problems: t.Array(ProblemPreviewWithLatestRecord, { default: [] }),
  },
  { title: "ProblemSetDetail" },
);

export const ProblemSetAddProblem = t.Object(
  {
    problem: t.String({ minLength: 1, maxLength: 256, description: "url or id" }),
    position: t.Optional(
      t.Nullable(Int32({ description: "index to insert before (negative: from the end); absent: append" })),
    ),
  },
  { title: "ProblemSetAddProblem" },
);
export const ProblemSetUpdateProblem = t.Object(
  { position: t.Optional(t.Nullable(Int32({ description: "new index (negative: from the end); absent: the end" }))) },
  { title: "ProblemSetUpdateProblem" },
);

export const SetParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  problemSet: t.String({ minLength: 1, maxLength: 256 }),
});
export const SetProblemParams = t.Object({
  ...SetParams.properties,
  problem: t.String({ minLength: 1, maxLength: 256 }),
});
export const ProblemSetListQuery = t.Object(PaginationQuery);

export const ProblemSetResp = Envelope(ProblemSetSchema, "ProblemSetResp");
export const ProblemSetDetailResp = Envelope(ProblemSetDetail, "ProblemSetDetailResp");
export const ProblemSetListResp = Envelope(ListOf(ProblemSetSchema, "ProblemSetList"), "ProblemSetListResp");
