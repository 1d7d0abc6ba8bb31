import { t } from "elysia";
import { PATTERNS } from "../../http/patterns";
import { DateTime, Envelope, Int32, ListOf, PaginationQuery, TimestampInput, Uuid, OutInt } from "../../http/schemas";
import { CASE_RESULTS, RECORD_STATES } from "./record-states";

export const RecordStateSchema = t.UnionEnum(RECORD_STATES, { title: "RecordState" });
export const RecordCaseResultSchema = t.UnionEnum(CASE_RESULTS, { title: "RecordCaseResult" });

/** Submission: Horse's `ProblemSolutionSubmit` (the file names are the paths inside the submission). */
export const ProblemSolutionSubmit = t.Object(
  { language: t.String({ minLength: 1, maxLength: 256 }), files: t.Files({ minItems: 1 }) },
  { title: "ProblemSolutionSubmit" },
);
export type SubmissionInput = typeof ProblemSolutionSubmit.static;

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
    codeUrl: t.Nullable(t.String({ description: "where the caller may download the submitted files, if they may (extension)" })),
  },
  { title: "RecordDetail" },
);
export type RecordDetailView = typeof RecordDetail.static;

const TaskIdField = t.Optional(t.String({ maxLength: 64, description: "the claimed task id; when given it must still be the record's (extension)" }));

/** The judger's final report: Horse's `RecordSubmit`. */
export const RecordSubmit = t.Object(
  {
    state: t.Optional(RecordStateSchema),
    score: t.Optional(Int32({ minimum: 0 })),
    timeMs: t.Optional(Int32({ minimum: 0 })),
    memoryKb: t.Optional(Int32({ minimum: 0 })),
    judgedAt: t.Optional(TimestampInput),
    taskId: TaskIdField,
  },
  { title: "RecordSubmit" },
);
export type RecordSubmitInput = typeof RecordSubmit.static;

/** One case's report: Horse's `RecordCaseSubmit`. */
export const RecordCaseSubmit = t.Object(
  {
    state: t.Optional(RecordCaseResultSchema),
    score: t.Optional(Int32({ minimum: 0 })),
    timeMs: t.Optional(Int32({ minimum: 0 })),
    memoryKb: t.Optional(Int32({ minimum: 0 })),
    returnCode: t.Optional(Int32()),
    stdout: t.Optional(t.String({ maxLength: 4 * 1024 * 1024 })),
    stderr: t.Optional(t.String({ maxLength: 4 * 1024 * 1024 })),
    taskId: TaskIdField,
  },
  { title: "RecordCaseSubmit" },
);
export type RecordCaseSubmitInput = typeof RecordCaseSubmit.static;

/** The next task for a judger over HTTP (extension): long-poll, then claim it with Horse's claim route. */
export const NextTaskBody = t.Object(
  { waitSeconds: t.Optional(t.Integer({ minimum: 0, maximum: 30, default: 25, description: "how long to wait for a task (long poll)" })) },
  { title: "JudgeNextTask" },
);
export const JudgeTaskSchema = t.Object(
  { recordId: Uuid, domainId: Uuid, taskId: Uuid, language: t.String() },
  { title: "JudgeTask", description: "claim it with POST /domains/{domainId}/records/{recordId}/judge/claim {taskId}" },
);
export const JudgeTaskResp = Envelope(JudgeTaskSchema, "JudgeTaskResp");

export const JudgerClaim = t.Object({ taskId: t.String({ minLength: 1, maxLength: 64 }) }, { title: "JudgerClaim" });

const FileLink = t.Object({ path: t.String(), digest: t.String(), size: OutInt(), url: t.String() }, { title: "JudgerFile" });

/**
 * Horse's four `JudgerCredentials` strings, plus what a judger needs to fetch everything through this
 * API: the lease, the language, the file lists (fetch by digest, cache by digest) and whole archives.
 */
export const JudgerCredentials = t.Object(
  {
    problemConfigRepoName: t.String(),
    problemConfigCommitId: t.String(),
    recordRepoName: t.String(),
    recordCommitId: t.String(),
    taskId: t.String(),
    language: t.String(),
    leaseExpiresAt: DateTime,
    problemConfigId: Uuid,
    configArchiveUrl: t.String(),
    codeArchiveUrl: t.String(),
    configFiles: t.Array(FileLink),
    codeFiles: t.Array(FileLink),
  },
  { title: "JudgerCredentials" },
);
export type JudgerCredentialsView = typeof JudgerCredentials.static;

export const RecordListQuery = t.Object({
  problemSet: t.Optional(t.String({ format: "uuid", description: "problem set id" })),
  problem: t.Optional(t.String({ format: "uuid", description: "problem id" })),
  submitterId: t.Optional(t.String({ format: "uuid", description: "submitter uid" })),
  ...PaginationQuery,
});
export type RecordListQueryInput = typeof RecordListQuery.static;

const DomainRef = t.String({ minLength: 1, maxLength: 256, description: "url or id of the domain" });
export const RecordParams = t.Object({ domain: DomainRef, record: t.String({ format: "uuid" }) });
export const CaseParams = t.Object({ domain: DomainRef, record: t.String({ format: "uuid" }), index: t.Integer({ minimum: 0, maximum: 9999 }) });
export const BlobParams = t.Object({ domain: DomainRef, record: t.String({ format: "uuid" }), digest: t.String({ pattern: PATTERNS.sha256 }) });
export const ArchiveQuery = t.Object({ archiveFormat: t.Optional(t.UnionEnum(["zip", "tar"], { default: "zip" })) });

export const RecordResp = Envelope(RecordSchema, "RecordResp");
export const RecordDetailResp = Envelope(RecordDetail, "RecordDetailResp");
export const RecordListDetailListResp = Envelope(ListOf(RecordListDetail, "RecordListDetailList"), "RecordListDetailListResp");
export const JudgerCredentialsResp = Envelope(JudgerCredentials, "JudgerCredentialsResp");
