import { Elysia, t } from "elysia";
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../server/deps";
import { BizError } from "../../core/errors";
import { ok } from "../../http/respond";
import { authPlugin } from "../identity/http/auth.plugin";
import { DomainParams } from "../domains/domains.schemas";
import { UrlSlug } from "../domains/domains.schemas";
import { DEFAULT_ARCHIVE_LIMITS } from "../problem-configs/archive-reader";
import { storeBlob } from "../problem-configs/blobs.service";
import { ProblemDetailResp } from "../problems/problems.schemas";
import { toProblemDetail } from "../problems/problems.service";
import { createFromPackage } from "./problem-packages.service";
import { verificationView, verifyPackage } from "./package-verification.service";
import { Envelope, OutInt } from "../../http/schemas";
import { kattisPackage } from "./kattis-export";
import { zipArchive } from "../problem-configs/archive-writer";
import { ProblemParams } from "../problems/problems.schemas";
import { findProblem } from "../problems/problems.service";

/** How long the API waits for the configs worker to read a package (as for a config archive). */
const READ_WAIT_MS = 60_000;

const PackageUpload = t.Object(
  {
    file: t.File({ description: "a zip of a Kattis package (either layout) or a Polygon package" }),
    url: t.Optional(UrlSlug),
    format: t.Optional(t.Union([t.Literal("kattis"), t.Literal("polygon")], { description: "detected when absent" })),
  },
  { title: "ProblemPackageUpload" },
);

const Nullable = <T extends import("@sinclair/typebox").TSchema>(schema: T) => t.Union([schema, t.Null()]);
const VerificationResp = Envelope(
  t.Object(
    {
      format: t.String(),
      count: OutInt(),
      pending: OutInt({ description: "submissions still being judged" }),
      mismatches: OutInt({ description: "submissions judged otherwise than the package expects" }),
      results: t.Array(
        t.Object({
          path: t.String(),
          expected: t.String(),
          language: Nullable(t.String()),
          record: Nullable(t.String()),
          state: Nullable(t.String()),
          actual: Nullable(t.String({ description: "accepted, or the first case's verdict that was not" })),
          matches: Nullable(t.Boolean()),
          skipped: Nullable(t.String()),
        }),
      ),
    },
    { title: "PackageVerification" },
  ),
  "PackageVerificationResp",
);

/** Problem packages in (extension): a Kattis or Polygon package becomes a problem with its first config version. */
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
          { uploadDigest: upload.digest, ...(body.format ? { format: body.format } : {}) },
          { queue: "configs", timeoutMs: READ_WAIT_MS, jobId: randomUUID() },
        );
        const problem = await createFromPackage(em, access, read, { url: body.url });
        // The package's own submissions, judged as no one's records once the problem exists.
        await verifyPackage(em, { store, jobs, config, logger }, problem, read);
        return ok(toProblemDetail(problem));
      },
      {
        // Creating the problem, and uploading its config.
        domainPermission: ["problem.create", "problem.viewConfig", "problem.edit"],
        params: DomainParams,
        body: PackageUpload,
        type: "multipart/form-data",
        response: ProblemDetailResp,
        detail: {
          operationId: "v1_import_problem_package",
          summary: "Create a problem and its first config version from a Kattis or Polygon package (extension)",
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
          summary: "The package's own submissions: each one's expected verdict and what it got (extension)",
        },
      },
    )
    .get(
      "/problems/:problem/package",
      async ({ em, access, params }) => {
        const problem = await findProblem(em, access, params.problem);
        const files = await kattisPackage(em, store, problem);
        const name = `${problem.url ?? problem.id}-kattis.zip`.replace(/[^A-Za-z0-9._-]/g, "_");
        return new Response(zipArchive(files), {
          headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${name}"` },
        });
      },
      {
        domainPermission: ["problem.viewConfig"],
        params: ProblemParams,
        query: t.Object({ format: t.Optional(t.Literal("kattis", { description: "the only format exported" })) }),
        detail: {
          operationId: "v1_export_problem_package",
          summary: "The problem's latest config version as a Kattis package, 2023-07 layout (extension)",
          responses: { 200: { description: "zip", content: { "application/zip": { schema: { type: "string" } } } } },
        },
      },
    );
}
