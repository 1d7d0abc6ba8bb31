import { t } from "elysia";
import { DateTime, Envelope, ListOf, PaginationQuery, Uuid } from "../../http/schemas";
import { PATTERNS } from "../../core/patterns";

/** A url slug: `[A-Za-z0-9_-]`, never a UUID (so url-or-id lookups never collide); empty = the id. */
export const UrlSlug = t.String({
  maxLength: 256,
  pattern: PATTERNS.urlSlug,
  errorMessage: "url can only contain [A-Za-z0-9_-] and can not be a UUID",
});

export const DomainCreate = t.Object(
  {
    url: t.Optional(UrlSlug),
    name: t.String({ minLength: 1, maxLength: 256 }),
    gravatar: t.Optional(t.String({ maxLength: 256, default: "" })),
    bulletin: t.Optional(t.String({ maxLength: 65536, default: "" })),
    hidden: t.Optional(t.Boolean({ default: true })),
    group: t.Optional(t.String({ maxLength: 256, default: "" })),
  },
  { title: "DomainCreate" },
);
export type DomainCreateInput = typeof DomainCreate.static;

/** Partial: an absent key is left as it is; `url: null` or `""` resets the url to the id. */
export const DomainEdit = t.Object(
  {
    url: t.Optional(t.Nullable(UrlSlug)),
    name: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    gravatar: t.Optional(t.String({ maxLength: 256 })),
    bulletin: t.Optional(t.String({ maxLength: 65536 })),
    hidden: t.Optional(t.Boolean()),
    group: t.Optional(t.String({ maxLength: 256 })),
  },
  { title: "DomainEdit" },
);
export type DomainEditInput = typeof DomainEdit.static;

const domainFields = {
  id: Uuid,
  url: t.String(),
  name: t.String(),
  gravatar: t.String({ default: "" }),
  bulletin: t.String({ default: "" }),
  hidden: t.Boolean({ default: true }),
  group: t.String({ default: "" }),
  ownerId: t.Nullable(Uuid),
};

export const DomainSchema = t.Object(domainFields, { title: "Domain" });
export type DomainView = typeof DomainSchema.static;

/**
 * Members get every field; a non-member gets the public card (the join page of an invitation link),
 * which for a hidden domain is only id, url and name: hence the optional fields.
 */
export const DomainDetail = t.Object(
  {
    id: Uuid,
    url: t.String(),
    name: t.String(),
    gravatar: t.Optional(t.String()),
    bulletin: t.Optional(t.String()),
    hidden: t.Optional(t.Boolean()),
    group: t.Optional(t.String()),
    ownerId: t.Optional(t.Nullable(Uuid)),
    createdAt: t.Optional(DateTime),
    updatedAt: t.Optional(DateTime),
    tag: t.Optional(t.Nullable(t.String())),
  },
  { title: "DomainDetail" },
);
export type DomainDetailView = typeof DomainDetail.static;

export const DomainTransfer = t.Object(
  { targetUser: t.String({ description: "'me' or id of the user" }) },
  { title: "DomainTransfer" },
);

export const DomainListQuery = t.Object({
  roles: t.Optional(t.Array(t.String(), { description: "the caller's role in the domain (repeatable)" })),
  groups: t.Optional(t.Array(t.String(), { description: "domain group (repeatable)" })),
  ...PaginationQuery,
});

export const GroupSearchQuery = t.Object({ query: t.String({ minLength: 2, maxLength: 256 }) });

export const DomainParams = t.Object({ domain: t.String({ minLength: 1, maxLength: 256 }) });

export const DomainResp = Envelope(DomainSchema, "DomainResp");
export const DomainDetailResp = Envelope(DomainDetail, "DomainDetailResp");
export const DomainListResp = Envelope(ListOf(DomainSchema, "DomainList"), "DomainListResp");
export const DomainTagListResp = Envelope(
  ListOf(t.String({ title: "DomainTag" }), "DomainTagList"),
  "DomainTagListResp",
);
