import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { okValue } from "../../http/respond";
import { listRecordPage } from "./record-list";
import { binaryResponse } from "../../http/schemas";
import { archiveDownload } from "../problem-configs/archive-writer";
import * as records from "./records.service";
import { recordUrlOf } from "../judging/protocol/judger-credentials";
import { DomainParams } from "../domains/domains.schemas";
import {
  ArchiveQuery,
  RecordDetailResp,
  RecordListDetailListResp,
  RecordListQuery,
  RecordParams,
} from "./records.schemas";

/** Reading records: one's own always, others' with `record.view`, code with ownership or `record.code`. */
export function recordsRoutes(deps: AppDeps) {
  const { store, config } = deps;
  return new Elysia({ name: "records-routes", prefix: "/domains/:domain", detail: { tags: ["record"] } })
    .use(authPlugin(deps))
    .get("/records", async ({ em, access, query, set }) => okValue(set, await listRecordPage(em, access, query)), {
      domainVisible: "lean",
      params: DomainParams,
      query: RecordListQuery,
      response: RecordListDetailListResp,
      detail: {
        operationId: "v1_list_records_in_domain",
        summary: "The domain's records, newest first (without record.view: one's own)",
      },
    })
    .get(
      "/records/:record",
      async ({ em, access, resource, params, set }) => {
        const codeUrl = `${recordUrlOf(config.publicUrl, access.domainId, params.record)}/code`;
        // Sent as written, unchecked by Elysia (record-detail-view.ts says why).
        return okValue(set, await records.recordDetailOf(em, store, access, resource, codeUrl));
      },
      {
        // The record comes with the caller's standing, in one statement.
        domainRead: { read: records.recordDetailRead },
        params: RecordParams,
        response: RecordDetailResp,
        detail: {
          operationId: "v1_get_record",
          summary: "One record with its cases (hidden cases' output needs record.detail)",
        },
      },
    )
    .get(
      "/records/:record/code",
      async ({ em, access, params, query }) => {
        const record = await records.findCodeReadableRecord(em, access, params.record);
        return archiveDownload(
          await records.filesOf(em, record),
          store,
          `record-${record.id}-code`,
          query.archiveFormat ?? "zip",
        );
      },
      {
        domainVisible: true,
        params: RecordParams,
        query: ArchiveQuery,
        detail: {
          operationId: "v1_download_record_code",
          summary:
            "The submitted files as an archive: for their author, record.code holders and the judging judger " +
            "(extension)",
          responses: binaryResponse("zip or tar.gz", "application/zip", "application/gzip"),
        },
      },
    );
}
