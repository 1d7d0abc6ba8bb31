import { Elysia } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../http/app-deps";
import { BizError } from "../../core/errors";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okPage } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import { findProblem } from "../problems/problems.service";
import { ProblemParams } from "../problems/problems.schemas";
import { DEFAULT_ARCHIVE_LIMITS } from "./archive-reader";
import { archiveDownload } from "./archive-writer";
import { ProblemConfigJson } from "../../core/config-model/config-schema";
import { assertKnownFields } from "../../core/config-model/config-json";
import { storeBlob } from "./blobs.service";
import { ProblemConfig } from "./problem-config.entity";
import { treeOf } from "./versions.service";
import * as configs from "./configs.service";
import {
  ConfigListQuery,
  ConfigParams,
  ConfigUploadQuery,
  DiffListResp,
  DiffQuery,
  DownloadQuery,
  FileUpload,
  ObjectQuery,
  ObjectStatsListResp,
  ProblemConfigDataDetailResp,
  ProblemConfigDetailListResp,
  ProblemConfigDetailResp,
} from "./configs.schemas";

// The API waits this long for the configs worker; a slower unpack finishes anyway and shows in the list.
const UNPACK_WAIT_MS = 120_000;

export function configsRoutes(deps: AppDeps) {
  const { store, jobs } = deps;
  return new Elysia({
    name: "configs-routes",
    prefix: "/domains/:domain/problems/:problem/configs",
    detail: { tags: ["problem config"] },
  })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, params, query }) =>
        okPage(
          await configs.listVersions(em, await findProblem(em, access, params.problem), query),
          configs.toVersionView,
        ),
      {
        domainPermission: "problem.viewConfig",
        params: ProblemParams,
        query: ConfigListQuery,
        response: ProblemConfigDetailListResp,
        detail: {
          operationId: "v1_list_problem_config_commits",
          summary: "The problem's config versions, newest first",
        },
      },
    )
    .post(
      "",
      async ({ em, access, params, query, body }) => {
        const problem = await findProblem(em, access, params.problem);
        if (body.file.size > DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes) {
          throw new BizError(
            "FileValidationError",
            `the archive is larger than ${DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes} bytes`,
          );
        }
        const upload = await storeBlob(em, store, new Uint8Array(await body.file.arrayBuffer()));
        const { configId } = await jobs.run(
          "config.unpack",
          {
            problemId: problem.id,
            uploadDigest: upload.digest,
            committerId: access.userId,
            committerIp: access.ip,
            configJsonOnMissing: query.configJsonOnMissing ?? "raise_error",
          },
          { queue: "configs", timeoutMs: UNPACK_WAIT_MS, jobId: randomUUID() },
        );
        return ok(configs.toVersionView(await em.findOneOrFail(ProblemConfig, { id: configId })));
      },
      {
        domainPermission: ["problem.viewConfig", "problem.edit"],
        params: ProblemParams,
        query: ConfigUploadQuery,
        body: FileUpload,
        type: "multipart/form-data",
        response: ProblemConfigDetailResp,
        detail: {
          operationId: "v1_update_problem_config_by_archive",
          summary: "A new version from a zip / tar / tar.gz archive (unpacked by the configs worker)",
        },
      },
    )
    .post(
      "/json",
      async ({ em, access, params, body }) => {
        const problem = await findProblem(em, access, params.problem);
        return ok(configs.toVersionView(await configs.updateConfigJson(em, store, problem, access, body)));
      },
      {
        domainPermission: ["problem.viewConfig", "problem.edit"],
        params: ProblemParams,
        // Before the body is validated, which drops what the schema does not know without a word.
        transform: ({ body }) => assertKnownFields(body),
        body: ProblemConfigJson,
        response: ProblemConfigDetailResp,
        detail: {
          operationId: "v1_update_problem_config_json",
          summary: "A new version with config.json replaced, other files kept",
        },
      },
    )
    .get(
      "/latest/ls",
      async ({ em, access, params, query }) => {
        const version = await configs.findVersion(em, await findProblem(em, access, params.problem), "latest");
        return ok(await configs.listObjects(em, version, query));
      },
      {
        domainPermission: "problem.viewConfig",
        params: ProblemParams,
        query: ObjectQuery,
        response: ObjectStatsListResp,
        detail: {
          operationId: "v1_list_latest_problem_config_objects_under_a_given_prefix",
          summary: "Files of the latest version (prefix, delimiter, cursor paging)",
        },
      },
    )
    .get(
      "/latest/diff",
      async ({ em, access, params, query }) =>
        ok(await configs.diffVersions(em, await findProblem(em, access, params.problem), query.from, query)),
      {
        domainPermission: "problem.viewConfig",
        params: ProblemParams,
        query: DiffQuery,
        response: DiffListResp,
        detail: {
          operationId: "v1_diff_problem_config_default_branch",
          summary: "What the latest version changed against the previous one (or `from`)",
        },
      },
    )
    .get(
      "/:config",
      async ({ em, access, params, query }) => {
        const problem = await findProblem(em, access, params.problem);
        const format = query.archiveFormat ?? "zip";
        if (format !== "zip" && format !== "tar")
          throw new BizError("FileDownloadError", "archive type not supported!");
        const version = await configs.findVersion(em, problem, params.config);
        return archiveDownload(
          await treeOf(em, version),
          store,
          `problem-${problem.url}-config-v${version.version}`,
          format,
        );
      },
      {
        domainPermission: ["problem.viewConfig", "problem.edit"],
        params: ConfigParams,
        query: DownloadQuery,
        detail: {
          operationId: "v1_download_problem_config_archive",
          summary: "The files of a version (`latest` or an id) as a zip or tar.gz, streamed",
          responses: {
            200: {
              description:
                "the archive; a business error (ProblemConfigNotFoundError, FileDownloadError) comes as the JSON " +
                "envelope",
              content: {
                "application/zip": { schema: { type: "string", format: "binary" } },
                "application/gzip": { schema: { type: "string", format: "binary" } },
                // A TypeBox schema is a JSON Schema object already.
                "application/json": { schema: EmptyResp as unknown as { type: "object" } },
              },
            },
          },
        },
      },
    )
    .get(
      "/:config/json",
      async ({ em, access, params }) => {
        const version = await configs.findVersion(em, await findProblem(em, access, params.problem), params.config);
        return ok({ ...configs.toVersionView(version), data: await configs.readConfigJson(em, store, version) });
      },
      {
        domainPermission: "problem.viewConfig",
        params: ConfigParams,
        response: ProblemConfigDataDetailResp,
        detail: { operationId: "v1_get_problem_config_json", summary: "A version and its parsed config.json" },
      },
    );
}
