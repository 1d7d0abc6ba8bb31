import { t } from "elysia";
import { Choice, DateTime, Envelope, Int32, ListOf, PaginationQuery, Uuid, OutInt } from "../../http/schemas";
import { STAGE_COMMENTS_MAX, STAGE_MESSAGE_MAX } from "../../core/judge-protocol";
import { CASE_RESULTS, RECORD_STATES } from "../judging/record-states";

export const RecordStateSchema = Choice(RECORD_STATES, { title: "RecordState" });
export const RecordCaseResultSchema = Choice(CASE_RESULTS, { title: "RecordCaseResult" });

const recordFields = {
  createdAt: DateTime,
  updatedAt: DateTime,
  id: Uuid,
  domainId: Uuid,
  state: RecordStateSchema,
  language: t.String(),
  score: OutInt({ default: 0 }),
  timeMs: OutInt({ default: 0 }),
  memoryKb: OutInt({ default: 0 }),
  judgedAt: t.Nullable(DateTime),
  late: t.Boolean({ default: false, description: "submitted to a problem set after its due time (extension)" }),
};
export const RecordSchema = t.Object(recordFields, { title: "Record" });
export type RecordView = typeof RecordSchema.static;

export const RecordListDetail = t.Object(
  {
    ...recordFields,
    problemSetId: t.Nullable(Uuid),
    problemSetTitle: t.Nullable(t.String()),
    problemId: t.Nullable(Uuid),
    problemTitle: t.Nullable(t.String()),
    committerId: t.Nullable(Uuid),
    committerUsername: t.Nullable(t.String()),
  },
  { title: "RecordListDetail" },
);
export type RecordListDetailView = typeof RecordListDetail.static;

export const RecordCase = t.Object(
  {
    state: RecordCaseResultSchema,
    score: OutInt({ default: 0 }),
    timeMs: OutInt({ default: 0 }),
    memoryKb: OutInt({ default: 0 }),
    returnCode: OutInt({ default: 0 }),
    stdout: t.String({ default: "" }),
    stderr: t.String({ default: "" }),
  },
  { title: "RecordCase" },
);

/** A stage's finding (core/judge-protocol.ts StageComment). */
export const RecordStageComment = t.Object(
  {
    file: t.String({ maxLength: 255, description: "the submitted file; empty when the finding names none" }),
    line: Int32({ minimum: 0, description: "1-based; 0 when it names no line" }),
    check: t.String({ maxLength: 128 }),
    message: t.String({ maxLength: STAGE_MESSAGE_MAX }),
    points: Int32({ minimum: 0, maximum: 1_000_000 }),
  },
  { title: "RecordStageComment" },
);

/** A lint, analysis or keyword stage's outcome (docs/config-reference.md "Stages"; extension). */
export const RecordStage = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 64 }),
    kind: t.String({ maxLength: 32 }),
    state: t.UnionEnum(["done", "failed", "skipped"], {
      description: "failed: the tool could not do its job (the judge's side): nothing deducted, the record says so",
    }),
    deduction: Int32({ minimum: 0, maximum: 1_000_000, description: "points off the tests' score, after the cap" }),
    forbidden: t.Boolean({ description: "a forbidden pattern was found: the record's score is 0" }),
    message: t.String({ maxLength: STAGE_MESSAGE_MAX }),
    comments: t.Array(RecordStageComment, { maxItems: STAGE_COMMENTS_MAX }),
  },
  { title: "RecordStage" },
);

/** A judgement a rejudge replaced (RecordHistoryEntry in record-states.ts). */
export const RecordHistoryEntrySchema = t.Object(
  {
    state: RecordStateSchema,
    score: OutInt(),
    timeMs: OutInt(),
    memoryKb: OutInt(),
    problemConfigId: t.Nullable(Uuid),
    judgedAt: t.Nullable(DateTime),
    rejudgedAt: DateTime,
    rejudgedBy: t.Nullable(Uuid, { description: "the user who asked for the rejudge" }),
  },
  { title: "RecordHistoryEntry" },
);

export const RecordDetail = t.Object(
  {
    ...recordFields,
    commitId: t.Nullable(t.String()),
    taskId: t.Nullable(Uuid),
    cases: t.Array(RecordCase, { default: [] }),
    problemSetId: t.Nullable(Uuid),
    problemId: t.Nullable(Uuid),
    problemConfigId: t.Nullable(Uuid),
    committerId: t.Nullable(Uuid),
    judgerId: t.Nullable(Uuid),
    attempts: OutInt({ description: "how many times a judger claimed it (extension)" }),
    codeUrl: t.Nullable(
      t.String({ description: "where the caller may download the submitted files, if they may (extension)" }),
    ),
    history: t.Array(RecordHistoryEntrySchema, {
      description: "earlier judgements that rejudges replaced, oldest first (extension)",
    }),
    stages: t.Array(RecordStage, {
      description: "the config's lint, analysis and keyword stages; the score is the tests' less their deductions",
    }),
  },
  { title: "RecordDetail" },
);
export type RecordDetailView = typeof RecordDetail.static;

export const RecordListQuery = t.Object({
  problemSet: t.Optional(t.String({ format: "uuid", description: "problem set id" })),
  problem: t.Optional(t.String({ format: "uuid", description: "problem id" })),
  submitterId: t.Optional(t.String({ format: "uuid", description: "submitter uid" })),
  ...PaginationQuery,
});
export type RecordListQueryInput = typeof RecordListQuery.static;

export const DomainRef = t.String({ minLength: 1, maxLength: 256, description: "url or id of the domain" });
export const RecordParams = t.Object({ domain: DomainRef, record: t.String({ format: "uuid" }) });
export const ArchiveQuery = t.Object({ archiveFormat: t.Optional(t.UnionEnum(["zip", "tar"], { default: "zip" })) });

export const RecordResp = Envelope(RecordSchema, "RecordResp");
export const RecordDetailResp = Envelope(RecordDetail, "RecordDetailResp");
export const RecordListDetailListResp = Envelope(
  ListOf(RecordListDetail, "RecordListDetailList"),
  "RecordListDetailListResp",
);
