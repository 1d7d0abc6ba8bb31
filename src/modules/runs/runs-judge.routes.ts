import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { serverSecrets } from "../../settings/config";
import { BizError } from "../../core/errors";
import { PATTERNS } from "../../core/patterns";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import { binaryResponse, EmptyResp } from "../../http/schemas";
import { archiveDownload } from "../problem-configs/archive-writer";
import { ArchiveQuery } from "../records/records.schemas";
import { caseRedaction } from "../judging/protocol/judge-reports.service";
import {
  JudgerClaim,
  JudgerCredentialsResp,
  RecordCasesSubmit,
  RecordCaseSubmit,
  RecordSubmit,
} from "../judging/protocol/judge.schemas";
import { enqueueRunJudging } from "../judging/tasks/judge-queue";
import { announceRecordChange, runChange } from "../record-events/record-events.bus";
import * as judging from "./run-judging.service";
import { RunParams } from "./runs.schemas";

const CaseParams = t.Object({ ...RunParams.properties, index: t.Integer({ minimum: 0, maximum: 9999 }) });
const BlobParams = t.Object({ ...RunParams.properties, digest: t.String({ pattern: PATTERNS.sha256 }) });

/**
 * The judge protocol for runs (extension, docs/api.md "Runs"): a record's calls under /runs/{run}, for a
 * judger taking a `run.judge` job or a `kind: "run"` task from next_task. The same fences as a record's.
 */
export function runsJudgeRoutes(deps: AppDeps) {
  const { store, config, jobs, logger } = deps;
  const announce = (domainId: string, runId: string) =>
    void announceRecordChange(jobs, logger, domainId, runChange(runId.toLowerCase()));
  const redaction = caseRedaction(serverSecrets(config), logger);
  const redacted = <T extends { stdout?: string; stderr?: string }>(body: T, runId: string): T =>
    redaction(body, { runId });
  const judge = { domainPermission: "record.judge" } as const;
  return new Elysia({ name: "runs-judge-routes", prefix: "/domains/:domain/runs/:run", detail: { tags: ["judge"] } })
    .use(authPlugin(deps))
    .post(
      "/judge/claim",
      async ({ em, access, params, body }) => {
        const claim = await judging.claimRun(em, access, params.run, body.taskId, config.judging, config.publicUrl);
        announce(access.domainId, params.run);
        return ok(claim);
      },
      {
        ...judge,
        params: RunParams,
        body: JudgerClaim,
        response: JudgerCredentialsResp,
        detail: { operationId: "v1_claim_run_by_judger", summary: "Claim a queued run with its task (extension)" },
      },
    )
    .post(
      "/judge/release",
      async ({ em, access, params, body }) => {
        await enqueueRunJudging(jobs, logger, await judging.releaseRun(em, access, params.run, body.taskId));
        return ok({});
      },
      {
        ...judge,
        params: RunParams,
        body: JudgerClaim,
        response: EmptyResp,
        detail: { operationId: "v1_release_run_by_judger", summary: "Give a run back to the queue (extension)" },
      },
    )
    .put(
      "/judge",
      async ({ em, access, params, body }) => {
        await judging.reportRun(em, access, params.run, body, config.judging);
        announce(access.domainId, params.run);
        return ok({});
      },
      {
        ...judge,
        params: RunParams,
        body: RecordSubmit,
        response: EmptyResp,
        detail: { operationId: "v1_submit_run_by_judger", summary: "The holder moves the run on (extension)" },
      },
    )
    .put(
      "/cases/:index/judge",
      async ({ em, access, params, body }) => {
        const { taskId, ...report } = redacted(body, params.run);
        const cases = [{ ...report, index: params.index }];
        await judging.reportRunCases(em, access, params.run, taskId, cases, config.judging);
        announce(access.domainId, params.run);
        return ok({});
      },
      {
        ...judge,
        params: CaseParams,
        body: RecordCaseSubmit,
        response: EmptyResp,
        detail: { operationId: "v1_submit_run_case_by_judger", summary: "The holder reports a run's case (extension)" },
      },
    )
    .put(
      "/cases/judge",
      async ({ em, access, params, body }) => {
        const cases = body.cases.map((c) => ({ ...redacted(c, params.run), index: c.index }));
        await judging.reportRunCases(em, access, params.run, body.taskId, cases, config.judging);
        announce(access.domainId, params.run);
        return ok({});
      },
      {
        ...judge,
        params: RunParams,
        body: RecordCasesSubmit,
        response: EmptyResp,
        detail: { operationId: "v1_submit_run_cases_by_judger", summary: "The holder reports cases (extension)" },
      },
    )
    .get(
      "/judge/:part",
      async ({ em, access, params, query }) => {
        const files = await judging.filesForRunHolder(em, access, params.run);
        const kind = params.part === "config" ? "config" : "code";
        const name = `run-${params.run.toLowerCase()}-${kind}`;
        return archiveDownload(
          files.filter((f) => f.kind === kind),
          store,
          name,
          query.archiveFormat ?? "zip",
        );
      },
      {
        ...judge,
        params: t.Object({ ...RunParams.properties, part: t.Union([t.Literal("config"), t.Literal("code")]) }),
        query: ArchiveQuery,
        detail: {
          operationId: "v1_download_run_archive_by_judger",
          summary: "The run's generated config or its program as an archive, for the holder (extension)",
          responses: binaryResponse("zip or tar.gz", "application/zip", "application/gzip"),
        },
      },
    )
    .get(
      "/judge/files/:digest",
      async ({ em, access, params }) => {
        const files = await judging.filesForRunHolder(em, access, params.run);
        if (!files.some((f) => f.digest === params.digest))
          throw new BizError("FileDownloadError", "no file of this run has this digest");
        return new Response(await store.get(params.digest), {
          headers: {
            "content-type": "application/octet-stream",
            "cache-control": "private, max-age=31536000, immutable",
          },
        });
      },
      {
        ...judge,
        params: BlobParams,
        detail: {
          operationId: "v1_download_run_file_by_judger",
          summary: "One file of the run by its SHA-256, for the holder (extension)",
          responses: binaryResponse("the file's bytes", "application/octet-stream"),
        },
      },
    );
}
