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
import { RecordPreview } from "../problems/problems.schemas";

const ScoreboardRule = Choice(["best", "last"], {
  description: "which of a user's scores per problem the scoreboard counts (extension)",
});

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
    scoreboardRule: t.Optional(ScoreboardRule),
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
    scoreboardRule: t.Optional(ScoreboardRule),
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
  dueAt: t.Nullable(DateTime),
  lockAt: t.Nullable(DateTime),
  unlockAt: t.Nullable(DateTime),
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
