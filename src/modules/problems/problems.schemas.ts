import { t } from "elysia";
import { DateTime, Envelope, ListOf, PaginationQuery, Uuid, OutInt } from "../../http/schemas";
import { UrlSlug } from "../domains/domains.schemas";

export const ProblemCreate = t.Object(
  {
    url: t.Optional(UrlSlug),
    title: t.String({ minLength: 1, maxLength: 512 }),
    hidden: t.Optional(t.Boolean({ default: false })),
    content: t.Optional(t.String({ maxLength: 65536, default: "" })),
  },
  { title: "ProblemCreate" },
);
export type ProblemCreateInput = typeof ProblemCreate.static;

export const ProblemEdit = t.Object(
  {
    url: t.Optional(t.Nullable(UrlSlug)),
    title: t.Optional(t.String({ minLength: 1, maxLength: 512 })),
    content: t.Optional(t.String({ maxLength: 65536 })),
    hidden: t.Optional(t.Boolean()),
  },
  { title: "ProblemEdit" },
);
export type ProblemEditInput = typeof ProblemEdit.static;

/** The caller's newest record for the problem (filled once records exist). */
export const RecordPreview = t.Object({ id: Uuid, state: t.String(), createdAt: DateTime }, { title: "RecordPreview" });

const problemFields = {
  id: Uuid,
  domainId: Uuid,
  url: t.String(),
  title: t.String(),
  hidden: t.Boolean({ default: false }),
  numSubmit: OutInt({ default: 0 }),
  numAccept: OutInt({ default: 0 }),
  ownerId: t.Nullable(Uuid),
  problemGroupId: t.Nullable(Uuid),
};
const detailFields = {
  ...problemFields,
  content: t.String({ default: "" }),
  createdAt: DateTime,
  updatedAt: DateTime,
  languages: t.Array(t.String()),
};

export const ProblemSchema = t.Object(problemFields, { title: "Problem" });
export const ProblemDetail = t.Object(detailFields, { title: "ProblemDetail" });
export const ProblemWithLatestRecord = t.Object(
  { ...problemFields, latestRecord: t.Nullable(RecordPreview) },
  { title: "ProblemWithLatestRecord" },
);
export const ProblemDetailWithLatestRecord = t.Object(
  { ...detailFields, latestRecord: t.Nullable(RecordPreview) },
  { title: "ProblemDetailWithLatestRecord" },
);
export type ProblemView = typeof ProblemSchema.static;
export type ProblemDetailView = typeof ProblemDetail.static;

export const ProblemClone = t.Object(
  {
    fromDomain: t.String({ minLength: 1, maxLength: 256, description: "url or id of the source domain" }),
    problems: t.Array(t.String({ minLength: 1, maxLength: 256 }), {
      minItems: 1,
      maxItems: 100,
      description: "urls or ids in the source domain",
    }),
    newGroup: t.Optional(t.Boolean({ default: false })),
  },
  { title: "ProblemClone" },
);
export type ProblemCloneInput = typeof ProblemClone.static;

export const ProblemParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  problem: t.String({ minLength: 1, maxLength: 256 }),
});
export const ProblemListQuery = t.Object(PaginationQuery);

export const ProblemResp = Envelope(ProblemSchema, "ProblemResp");
export const ProblemDetailResp = Envelope(ProblemDetail, "ProblemDetailResp");
export const ProblemDetailWithLatestRecordResp = Envelope(
  ProblemDetailWithLatestRecord,
  "ProblemDetailWithLatestRecordResp",
);
export const ProblemWithLatestRecordListResp = Envelope(
  ListOf(ProblemWithLatestRecord, "ProblemWithLatestRecordList"),
  "ProblemWithLatestRecordListResp",
);
export const ProblemListResp = Envelope(ListOf(ProblemSchema, "ProblemList"), "ProblemListResp");
export const ProblemGroupListResp = Envelope(
  ListOf(t.Object({ id: Uuid }, { title: "ProblemGroup" }), "ProblemGroupList"),
  "ProblemGroupListResp",
);
