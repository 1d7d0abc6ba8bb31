import { Elysia } from "elysia";
import type { AppDeps } from "../../app";
import { BizError } from "../../errors";
import { authPlugin } from "../../http/auth.plugin";
import { ok } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import type { DomainAccess } from "../../auth/access";
import { archiveDownload } from "../problem-configs/archive-writer";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import { treeOf } from "../problem-configs/versions.service";
import type { EntityManager } from "@mikro-orm/postgresql";
import * as judge from "./judge.service";
import { judgerCredentials } from "./judger-credentials";
import { filesOf, findRecord } from "./records.service";
import { isWorking } from "./record-states";
import type { JudgeRecord } from "./record.entity";
import {
  ArchiveQuery, BlobParams, CaseParams, JudgerClaim, JudgerCredentialsResp, RecordCaseSubmit, RecordParams, RecordSubmit,
} from "./records.schemas";

const BINARY = { schema: { type: "string" as const, format: "binary" } };

/** The judger working on a record now (its lease holder) may fetch what it needs to judge it. */
async function recordOfHolder(em: EntityManager, access: DomainAccess, id: string): Promise<JudgeRecord> {
  const record = await findRecord(em, access.domain, id);
  if (record.judger?.id !== access.user.id || !isWorking(record.state)) {
    throw new BizError("Error", "only the judger holding this record's lease may fetch its files");
  }
  if (!record.config) throw new BizError("ProblemConfigNotFoundError", "the record's config version no longer exists");
  return record;
}

/** Horse's three judge routes, fenced (claim, lease, forward-only states), plus the judger's downloads. */
export function judgeRoutes(deps: AppDeps) {
  const { store, config } = deps;
  return new Elysia({ name: "judge-routes", prefix: "/domains/:domain/records/:record", detail: { tags: ["judge"] } })
    .use(authPlugin(deps))
    .post("/judge/claim", async ({ em, access, params, body }) => {
      const record = await judge.claimRecord(em, access, params.record, body.taskId, config.judging);
      return ok(await judgerCredentials(em, record, config.publicUrl));
    }, {
      domainPermission: "record.judge",
      params: RecordParams,
      body: JudgerClaim,
      response: JudgerCredentialsResp,
      detail: { operationId: "v1_claim_record_by_judger", summary: "Claim a waiting record with its current task id; the answer leases it and links its files" },
    })
    .put("/judge", async ({ em, access, params, body }) => {
      await judge.reportRecord(em, access, params.record, body, config.judging);
      return ok({});
    }, {
      domainPermission: "record.judge",
      params: RecordParams,
      body: RecordSubmit,
      response: EmptyResp,
      detail: { operationId: "v1_submit_record_by_judger", summary: "The lease holder moves the record forward; a final state ends the judging" },
    })
    .put("/cases/:index/judge", async ({ em, access, params, body }) => {
      await judge.reportCase(em, store, access, params.record, params.index, body, config.judging);
      return ok({});
    }, {
      domainPermission: "record.judge",
      params: CaseParams,
      body: RecordCaseSubmit,
      response: EmptyResp,
      detail: { operationId: "v1_submit_case_by_judger", summary: "The lease holder reports one case; totals follow from all cases" },
    })
    .get("/judge/config", async ({ em, access, params, query }) => {
      const record = await recordOfHolder(em, access, params.record);
      const version = await em.findOneOrFail(ProblemConfig, { id: record.config!.id });
      return archiveDownload(await treeOf(em, version), store, `record-${record.id}-config`, query.archiveFormat ?? "zip");
    }, {
      domainPermission: "record.judge",
      params: RecordParams,
      query: ArchiveQuery,
      detail: {
        operationId: "v1_download_record_config_by_judger",
        summary: "The record's pinned config version as an archive, for the lease holder (extension)",
        responses: { 200: { description: "zip or tar.gz", content: { "application/zip": BINARY, "application/gzip": BINARY } } },
      },
    })
    .get("/judge/files/:digest", async ({ em, access, params }) => {
      const record = await recordOfHolder(em, access, params.record);
      const version = await em.findOneOrFail(ProblemConfig, { id: record.config!.id });
      const known = [...(await treeOf(em, version)), ...(await filesOf(em, record))].some((f) => f.digest === params.digest);
      if (!known) throw new BizError("FileDownloadError", "no file of this record's config or submission has this digest");
      return new Response(await store.get(params.digest), {
        headers: { "content-type": "application/octet-stream", "cache-control": "private, max-age=31536000, immutable" },
      });
    }, {
      domainPermission: "record.judge",
      params: BlobParams,
      detail: {
        operationId: "v1_download_record_file_by_judger",
        summary: "One config or submitted file by its SHA-256, for the lease holder; cache it by digest (extension)",
        responses: { 200: { description: "the file's bytes", content: { "application/octet-stream": BINARY } } },
      },
    });
}
