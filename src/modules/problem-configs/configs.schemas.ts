import { t } from "elysia";
import { DateTime, Envelope, ListOf, PaginationQuery, Uuid, OutInt } from "../../http/schemas";
import { ProblemConfigJson } from "../../core/config-model/config-schema";

export const ProblemConfigDetail = t.Object(
  {
    id: Uuid,
    commitMessage: t.String({ default: "" }),
    dataVersion: t.Integer({ default: 2 }),
    commitId: t.String({ description: "SHA-256 of the version's file tree" }),
    committerId: t.Nullable(Uuid),
    createdAt: DateTime,
    updatedAt: DateTime,
    version: OutInt({ description: "1, 2, … per problem; the highest is `latest`" }),
  },
  { title: "ProblemConfigDetail" },
);
export type ProblemConfigDetailView = typeof ProblemConfigDetail.static;

export const ProblemConfigDataDetail = t.Object(
  { ...ProblemConfigDetail.properties, data: ProblemConfigJson },
  { title: "ProblemConfigDataDetail" },
);

export const ConfigUploadQuery = t.Object({
  configJsonOnMissing: t.Optional(t.UnionEnum(["raise_error", "use_old", "use_default"], { default: "raise_error" })),
});
export const FileUpload = t.Object(
  { file: t.File({ description: "a zip, tar or tar.gz archive" }) },
  { title: "FileUpload" },
);

export const ObjectQuery = t.Object({
  prefix: t.Optional(t.String({ maxLength: 1024, default: "" })),
  delimiter: t.Optional(t.String({ maxLength: 16, default: "" })),
  after: t.Optional(t.String({ maxLength: 1024, default: "" })),
  amount: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
export const DiffQuery = t.Object({
  ...ObjectQuery.properties,
  from: t.Optional(t.String({ description: "a version id to compare with (default: the one before latest)" })),
});
export const DownloadQuery = t.Object({
  archiveFormat: t.Optional(t.UnionEnum(["zip", "tar", "rar", "unknown"], { default: "zip" })),
});

export const ConfigParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  problem: t.String({ minLength: 1, maxLength: 256 }),
  config: t.String({ minLength: 1, maxLength: 64, description: "`latest` or a version id" }),
});

const Pagination = t.Object(
  { has_more: t.Boolean(), next_offset: t.String(), results: OutInt(), max_per_page: OutInt() },
  { title: "Pagination" },
);
const PathType = t.UnionEnum(["object", "common_prefix"], { title: "PathTypeEnum" });
const ObjectStats = t.Object(
  {
    path: t.String(),
    path_type: PathType,
    checksum: t.String(),
    size_bytes: t.Optional(OutInt()),
    mtime: OutInt(),
    content_type: t.Optional(t.String()),
  },
  { title: "ObjectStats" },
);
const Diff = t.Object(
  {
    type: t.UnionEnum(["added", "removed", "changed", "conflict"], { title: "DiffTypeEnum" }),
    path: t.String(),
    path_type: PathType,
    size_bytes: t.Optional(t.Integer()),
  },
  { title: "Diff" },
);

export const ConfigListQuery = t.Object(PaginationQuery);
export const ProblemConfigDetailResp = Envelope(ProblemConfigDetail, "ProblemConfigDetailResp");
export const ProblemConfigDetailListResp = Envelope(
  ListOf(ProblemConfigDetail, "ProblemConfigDetailList"),
  "ProblemConfigDetailListResp",
);
export const ProblemConfigDataDetailResp = Envelope(ProblemConfigDataDetail, "ProblemConfigDataDetailResp");
export const ObjectStatsListResp = Envelope(
  t.Object({ pagination: Pagination, results: t.Array(ObjectStats) }, { title: "ObjectStatsList" }),
  "ObjectStatsListResp",
);
export const DiffListResp = Envelope(
  t.Object({ pagination: Pagination, results: t.Array(Diff) }, { title: "DiffList" }),
  "DiffListResp",
);
