import { t } from "elysia";
import { DateTime, Envelope, ListOf, TimestampInput, Uuid } from "../../http/schemas";
import { PATTERNS } from "../../core/patterns";
import { UrlSlug } from "./domains.schemas";

const NOT_ROOT = { pattern: PATTERNS.invitableRole, errorMessage: "role can not be root" };

export const DomainInvitationCreate = t.Object(
  {
    url: t.Optional(UrlSlug),
    code: t.String({ minLength: 1, maxLength: 256, description: "invitation code" }),
    expireAt: t.Optional(t.Nullable(TimestampInput)),
    role: t.Optional(t.String({ maxLength: 256, default: "user", ...NOT_ROOT })),
  },
  { title: "DomainInvitationCreate" },
);
export type InvitationCreateInput = typeof DomainInvitationCreate.static;

/** Partial; an invitation can never grant root, on edit as on create (Horse forgot it on edit). */
export const DomainInvitationEdit = t.Object(
  {
    url: t.Optional(t.Nullable(UrlSlug)),
    code: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    expireAt: t.Optional(t.Nullable(TimestampInput)),
    role: t.Optional(t.String({ maxLength: 256, ...NOT_ROOT })),
  },
  { title: "DomainInvitationEdit" },
);
export type InvitationEditInput = typeof DomainInvitationEdit.static;

export const DomainInvitation = t.Object(
  {
    id: Uuid,
    domainId: Uuid,
    url: t.String(),
    code: t.String(),
    expireAt: t.Nullable(DateTime),
    role: t.String(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: "DomainInvitation" },
);
export type DomainInvitationView = typeof DomainInvitation.static;

export const InvitationParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  invitation: t.String({ minLength: 1, maxLength: 256 }),
});
export const JoinQuery = t.Object({ invitationCode: t.String({ minLength: 1, maxLength: 256 }) });

export const DomainInvitationResp = Envelope(DomainInvitation, "DomainInvitationResp");
export const DomainInvitationListResp = Envelope(
  ListOf(DomainInvitation, "DomainInvitationList"),
  "DomainInvitationListResp",
);
