import { t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { Envelope, OutInt } from "../../http/schemas";
import { UrlSlug } from "../domains/domains.schemas";
import { ProblemDetail } from "../problems/problems.schemas";
import { DEFAULT_KATTIS_VERSION, KATTIS_VERSIONS } from "./kattis/kattis-export-version";

/** Problem packages' bodies and answers (extensions; docs/problem-packages.md). */

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
export const FORMATS = ["kattis", "polygon", "fps", "hydro"] as const;

export const PackageUpload = t.Object(
  {
    file: t.File({
      description: "a zip of a Kattis (either layout), Polygon or Hydro package, or an FPS file (.xml, or zipped)",
    }),
    url: t.Optional(UrlSlug),
    format: t.Optional(
      t.Union(
        FORMATS.map((f) => t.Literal(f)),
        { description: "detected when absent" },
      ),
    ),
  },
  { title: "ProblemPackageUpload" },
);

const Attachment = t.Object(
  {
    name: t.String({ description: "as the statement links it" }),
    size: OutInt(),
    url: t.String({ description: "where it is served, to whoever may see the problem" }),
  },
  { title: "ProblemAttachment" },
);

const importFields = {
  format: t.String(),
  notes: t.Array(t.String(), { description: "what the format has that was not kept, and what was assumed" }),
  attachments: t.Array(Attachment),
};

export const ImportedProblem = t.Composite(
  [
    ProblemDetail,
    t.Object({
      ...importFields,
      submissions: OutInt({ description: "the package's submissions, judged to verify the import" }),
      skipped: OutInt({ description: "submissions that cannot be judged faithfully (the verification says why)" }),
    }),
  ],
  { title: "ImportedProblem" },
);

export const ImportResp = Envelope(
  t.Object({ count: OutInt(), results: t.Array(ImportedProblem) }, { title: "ProblemPackageImport" }),
  "ProblemPackageImportResp",
);

export const PackageImportResp = Envelope(
  t.Object({ ...importFields, createdAt: t.String() }, { title: "ProblemPackageImportRecord" }),
  "ProblemPackageImportRecordResp",
);

export const VerificationResp = Envelope(
  t.Object(
    {
      format: t.String(),
      notes: t.Array(t.String()),
      count: OutInt(),
      pending: OutInt({ description: "submissions still being judged" }),
      mismatches: OutInt({ description: "submissions judged otherwise than the package says they must be" }),
      skipped: OutInt({ description: "submissions not judged (the reason says why)" }),
      results: t.Array(
        t.Object({
          path: t.String(),
          expected: t.String({ description: "in the format's words: a Kattis folder, a Polygon tag, …" }),
          language: Nullable(t.String()),
          record: Nullable(t.String()),
          state: Nullable(t.String()),
          score: Nullable(OutInt()),
          actual: Nullable(t.String({ description: "accepted, or the first case's verdict that was not" })),
          matches: Nullable(t.Boolean({ description: "null: not judged, being judged, or the judge failed" })),
          reason: t.String({ description: "which case decided it, against which rule of the format" }),
          skipped: Nullable(t.String()),
        }),
      ),
    },
    { title: "PackageVerification" },
  ),
  "PackageVerificationResp",
);

const KattisVersion = t.Union(
  KATTIS_VERSIONS.map((v) => t.Literal(v)),
  {
    description:
      `the Kattis problem format version written; ${DEFAULT_KATTIS_VERSION} when absent, the newest ` +
      "problemtools' verifyproblem loads",
  },
);

export const ExportQuery = t.Object({
  format: t.Optional(t.Literal("kattis", { description: "the only format exported" })),
  formatVersion: t.Optional(KattisVersion),
  format_version: t.Optional(KattisVersion),
});
