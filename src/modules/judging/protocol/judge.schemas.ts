import { t } from "elysia";
import { PATTERNS } from "../../../core/patterns";
import { DateTime, Envelope, Int32, TimestampInput, Uuid, OutInt } from "../../../http/schemas";
import { DomainRef, RecordCaseResultSchema, RecordStage, RecordStateSchema } from "../../records/records.schemas";

const TaskIdField = t.Optional(
  t.String({ maxLength: 64, description: "the claimed task id; when given it must still be the record's (extension)" }),
);

/** The judger's final report: Horse's `RecordSubmit`. */
export const RecordSubmit = t.Object(
  {
    state: t.Optional(RecordStateSchema),
    score: t.Optional(Int32({ minimum: 0 })),
    timeMs: t.Optional(Int32({ minimum: 0 })),
    memoryKb: t.Optional(Int32({ minimum: 0 })),
    judgedAt: t.Optional(TimestampInput),
    taskId: TaskIdField,
    stages: t.Optional(
      t.Array(RecordStage, {
        maxItems: 16,
        description: "the config's stages, all of them each time (extension): the record's are replaced",
      }),
    ),
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

/** Most cases one batch may carry (a judge sends them as they finish, every ~50 ms). */
export const MAX_CASES_PER_BATCH = 1000;

/** Several cases' reports at once, each with its index (extension: our judge batches its reports). */
export const RecordCasesSubmit = t.Object(
  {
    cases: t.Array(
      t.Composite([
        t.Omit(RecordCaseSubmit, ["taskId"]),
        t.Object({ index: t.Integer({ minimum: 0, maximum: 9999 }) }),
      ]),
      { minItems: 1, maxItems: MAX_CASES_PER_BATCH },
    ),
    taskId: TaskIdField,
  },
  { title: "RecordCasesSubmit" },
);
export type RecordCasesSubmitInput = typeof RecordCasesSubmit.static;

export const JudgerClaim = t.Object({ taskId: t.String({ minLength: 1, maxLength: 64 }) }, { title: "JudgerClaim" });

const FileLink = t.Object(
  { path: t.String(), digest: t.String(), size: OutInt(), url: t.String() },
  { title: "JudgerFile" },
);

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

export const CaseParams = t.Object({
  domain: DomainRef,
  record: t.String({ format: "uuid" }),
  index: t.Integer({ minimum: 0, maximum: 9999 }),
});
export const BlobParams = t.Object({
  domain: DomainRef,
  record: t.String({ format: "uuid" }),
  digest: t.String({ pattern: PATTERNS.sha256 }),
});

export const JudgerCredentialsResp = Envelope(JudgerCredentials, "JudgerCredentialsResp");
