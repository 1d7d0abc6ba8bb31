import { Elysia } from "elysia";
import type { AppDeps } from "../../../http/app-deps";
import { serverSecrets } from "../../../settings/config";
import { BizError } from "../../../core/errors";
import { authPlugin } from "../../identity/http/auth.plugin";
import { ok } from "../../../http/respond";
import { binaryResponse, EmptyResp } from "../../../http/schemas";
import { archiveDownload } from "../../problem-configs/archive-writer";
import * as judge from "./judge.service";
import * as reports from "./judge-reports.service";
import { releaseRecord } from "../tasks/judge-tasks.service";
import { enqueueJudging } from "../tasks/judge-queue";
import { announceRecordChange } from "../../record-events/record-events.bus";
import { ArchiveQuery, RecordParams } from "../../records/records.schemas";
import {
  BlobParams,
  CaseParams,
  JudgerClaim,
  JudgerCredentialsResp,
  RecordCasesSubmit,
  RecordCaseSubmit,
  RecordSubmit,
  type RecordSubmitInput,
} from "./judge.schemas";

/** Horse's three judge routes, fenced (claim, lease, forward-only states), plus the judger's downloads. */
export function judgeRoutes(deps: AppDeps) {
  const { store, config, jobs, logger } = deps;
  // Live streams hear of each change; not awaited: a judge's report does not wait on the announcement.
  const announce = (domainId: string, recordId: string) =>
    void announceRecordChange(jobs, logger, domainId, recordId.toLowerCase());
  // Any judger's output (ours or another's) loses the server's own secrets before it is stored.
  const redaction = reports.caseRedaction(serverSecrets(config), logger);
  const redacted = <T extends { stdout?: string; stderr?: string }>(body: T, recordId: string, index: number): T =>
    redaction(body, { recordId, case: index });
  // A stage's messages quote the submission and the tools: cut the same way.
  const text = (message: string, recordId: string, stage: string) =>
    redaction({ stdout: message }, { recordId, stage }).stdout;
  const redactedStages = (body: RecordSubmitInput, recordId: string): RecordSubmitInput =>
    body.stages === undefined
      ? body
      : {
          ...body,
          stages: body.stages.map((s) => ({
            ...s,
            message: text(s.message, recordId, s.name),
            comments: s.comments.map((c) => ({ ...c, message: text(c.message, recordId, s.name) })),
          })),
        };
  return new Elysia({ name: "judge-routes", prefix: "/domains/:domain/records/:record", detail: { tags: ["judge"] } })
    .use(authPlugin(deps))
    .post(
      "/judge/claim",
      async ({ em, access, params, body }) => {
        const claimed = await judge.claimForJudger(
          em,
          access,
          params.record,
          body.taskId,
          config.judging,
          config.publicUrl,
        );
        announce(access.domainId, params.record);
        return ok(claimed);
      },
      {
        domainPermission: "record.judge",
        params: RecordParams,
        body: JudgerClaim,
        response: JudgerCredentialsResp,
        detail: {
          operationId: "v1_claim_record_by_judger",
          summary: "Claim a waiting record with its current task id; the answer leases it and links its files",
        },
      },
    )
    .post(
      "/judge/release",
      async ({ em, access, params, body }) => {
        await enqueueJudging(jobs, logger, await releaseRecord(em, access, params.record, body.taskId));
        return ok({});
      },
      {
        domainPermission: "record.judge",
        params: RecordParams,
        body: JudgerClaim,
        response: EmptyResp,
        detail: {
          operationId: "v1_release_record_by_judger",
          summary: "The lease holder gives the record back: it waits again under a new task id (extension)",
        },
      },
    )
    .put(
      "/judge",
      async ({ em, access, params, body }) => {
        await reports.reportRecord(em, access, params.record, redactedStages(body, params.record), config.judging);
        announce(access.domainId, params.record);
        return ok({});
      },
      {
        domainPermission: "record.judge",
        params: RecordParams,
        body: RecordSubmit,
        response: EmptyResp,
        detail: {
          operationId: "v1_submit_record_by_judger",
          summary: "The lease holder moves the record forward; a final state ends the judging",
        },
      },
    )
    .put(
      "/cases/:index/judge",
      async ({ em, access, params, body }) => {
        const report = redacted(body, params.record, params.index);
        await reports.reportCase(em, store, access, params.record, params.index, report, config.judging);
        announce(access.domainId, params.record);
        return ok({});
      },
      {
        domainPermission: "record.judge",
        params: CaseParams,
        body: RecordCaseSubmit,
        response: EmptyResp,
        detail: {
          operationId: "v1_submit_case_by_judger",
          summary: "The lease holder reports one case; totals follow from all cases",
        },
      },
    )
    .put(
      "/cases/judge",
      async ({ em, access, params, body }) => {
        const cases = body.cases.map((c) => ({ ...redacted(c, params.record, c.index), index: c.index }));
        await reports.reportCases(em, store, access, params.record, { taskId: body.taskId, cases }, config.judging);
        announce(access.domainId, params.record);
        return ok({});
      },
      {
        domainPermission: "record.judge",
        params: RecordParams,
        body: RecordCasesSubmit,
        response: EmptyResp,
        detail: {
          operationId: "v1_submit_cases_by_judger",
          summary: "The lease holder reports several cases in one go, merged all or none (extension)",
        },
      },
    )
    .get(
      "/judge/config",
      async ({ em, access, params, query }) => {
        const { record, configFiles } = await judge.filesForHolder(em, access, params.record);
        return archiveDownload(configFiles, store, `record-${record.id}-config`, query.archiveFormat ?? "zip");
      },
      {
        domainPermission: "record.judge",
        params: RecordParams,
        query: ArchiveQuery,
        detail: {
          operationId: "v1_download_record_config_by_judger",
          summary: "The record's pinned config version as an archive, for the lease holder (extension)",
          responses: binaryResponse("zip or tar.gz", "application/zip", "application/gzip"),
        },
      },
    )
    .get(
      "/judge/files/:digest",
      async ({ em, access, params }) => {
        const { configFiles, codeFiles } = await judge.filesForHolder(em, access, params.record);
        if (![...configFiles, ...codeFiles].some((f) => f.digest === params.digest)) {
          throw new BizError("FileDownloadError", "no file of this record's config or submission has this digest");
        }
        return new Response(await store.get(params.digest), {
          headers: {
            "content-type": "application/octet-stream",
            "cache-control": "private, max-age=31536000, immutable",
          },
        });
      },
      {
        domainPermission: "record.judge",
        params: BlobParams,
        detail: {
          operationId: "v1_download_record_file_by_judger",
          summary: "One config or submitted file by its SHA-256, for the lease holder; cache it by digest (extension)",
          responses: binaryResponse("the file's bytes", "application/octet-stream"),
        },
      },
    );
}
