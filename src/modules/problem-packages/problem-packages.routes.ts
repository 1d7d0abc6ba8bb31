import { Elysia, t } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../http/app-deps";
import { BizError } from "../../core/errors";
import { isoTime } from "../../http/schemas";
import { ok } from "../../http/respond";
import { authPlugin } from "../identity/http/auth.plugin";
import { DomainParams } from "../domains/domains.schemas";
import { DEFAULT_ARCHIVE_LIMITS } from "../problem-configs/archive-reader";
import { zipArchive } from "../problem-configs/archive-writer";
import { storeBlob } from "../problem-configs/blobs.service";
import { ProblemParams } from "../problems/problems.schemas";
import { findProblem, toProblemDetail } from "../problems/problems.service";
import { kattisPackage } from "./kattis/kattis-export";
import { attachmentBody, attachmentLinks, attachmentName, storedAttachments } from "./package-attachments";
import { importView, verificationView, verifyPackages } from "./package-verification.service";
import { createFromPackage } from "./problem-packages.service";
import {
  ExportQuery,
  ImportResp,
  PackageImportResp,
  PackageUpload,
  VerificationResp,
} from "./problem-packages.schemas";

/** How long the API waits for the configs worker to read a package (as for a config archive). */
const READ_WAIT_MS = 60_000;

/**
 * Problem packages in and out (extensions; docs/problem-packages.md): a Kattis, Polygon, Hydro or FPS package
 * becomes problems with their first config versions; each keeps its import record (notes, verification)
 * and the files its statement shows; a problem goes out as a Kattis package.
 */
export function problemPackageRoutes(deps: AppDeps) {
  const { store, jobs, config, logger } = deps;
  return new Elysia({ name: "problem-package-routes", prefix: "/domains/:domain", detail: { tags: ["problem"] } })
    .use(authPlugin(deps))
    .post(
      "/problem_packages",
      async ({ em, access, body }) => {
        if (body.file.size > DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes)
          throw new BizError(
            "FileValidationError",
            `the package is larger than ${DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes} bytes`,
          );
        const upload = await storeBlob(em, store, new Uint8Array(await body.file.arrayBuffer()));
        const read = await jobs.run(
          "package.read",
          { uploadDigest: upload.digest, fileName: body.file.name, ...(body.format ? { format: body.format } : {}) },
          { queue: "configs", timeoutMs: READ_WAIT_MS, jobId: randomUUID() },
        );
        const imported = await createFromPackage(em, access, read, { url: body.url });
        // The package's own submissions, judged as no one's records once the problems exist.
        await verifyPackages(em, { store, jobs, config, logger }, imported);
        const results = imported.map((one) => ({
          ...toProblemDetail(one.problem),
          format: read.format,
          notes: one.verification.notes,
          attachments: attachmentLinks(access.domainId, one.problem.id, one.read.attachments),
          submissions: one.verification.submissions.length,
          skipped: one.verification.submissions.filter((s) => s.skipped).length,
        }));
        return ok({ count: results.length, results });
      },
      {
        // Creating the problem, and uploading its config.
        domainPermission: ["problem.create", "problem.viewConfig", "problem.edit"],
        params: DomainParams,
        body: PackageUpload,
        type: "multipart/form-data",
        response: ImportResp,
        detail: {
          operationId: "v1_import_problem_package",
          summary: "Create problems and their first config versions from a Kattis, Polygon, Hydro or FPS package",
        },
      },
    )
    .get(
      "/problems/:problem/package/import",
      async ({ em, access, params }) => {
        const problem = await findProblem(em, access, params.problem);
        const record = await importView(em, problem);
        const attachments = await storedAttachments(em, access.domainId, problem);
        return ok({ format: record.format, notes: record.notes, attachments, createdAt: isoTime(record.createdAt) });
      },
      {
        domainPermission: "problem.view",
        params: ProblemParams,
        response: PackageImportResp,
        detail: {
          operationId: "v1_get_problem_package_import",
          summary: "How the problem was imported: its package's format, the import's notes, its attachments",
        },
      },
    )
    .get(
      "/problems/:problem/attachments/*",
      async ({ em, access, params }) =>
        attachmentBody(em, store, await findProblem(em, access, params.problem), attachmentName(params["*"])),
      {
        domainPermission: "problem.view",
        params: t.Object({ domain: t.String(), problem: t.String(), "*": t.String() }),
        detail: {
          operationId: "v1_get_problem_attachment",
          summary: "A file the problem's statement shows (an image) or an attachment of its package",
          responses: {
            200: { description: "the file", content: { "application/octet-stream": { schema: { type: "string" } } } },
          },
        },
      },
    )
    .get(
      "/problems/:problem/package/verification",
      async ({ em, access, params }) => ok(await verificationView(em, await findProblem(em, access, params.problem))),
      {
        domainPermission: ["problem.viewConfig", "record.view"],
        params: ProblemParams,
        response: VerificationResp,
        detail: {
          operationId: "v1_get_problem_package_verification",
          summary: "The package's own submissions: what each must earn, what it got, and why that matches or not",
        },
      },
    )
    .get(
      "/problems/:problem/package",
      async ({ em, access, params, query }) => {
        const problem = await findProblem(em, access, params.problem);
        const files = await kattisPackage(em, store, problem, query.formatVersion ?? query.format_version);
        const name = `${problem.url ?? problem.id}-kattis.zip`.replace(/[^A-Za-z0-9._-]/g, "_");
        return new Response(zipArchive(files), {
          headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${name}"` },
        });
      },
      {
        domainPermission: ["problem.viewConfig"],
        params: ProblemParams,
        query: ExportQuery,
        detail: {
          operationId: "v1_export_problem_package",
          summary: "The problem's latest config version as a Kattis package in the format version asked (extension)",
          responses: { 200: { description: "zip", content: { "application/zip": { schema: { type: "string" } } } } },
        },
      },
    );
}
