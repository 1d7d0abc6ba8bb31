import { t } from "elysia";
import { Choice, DateTime, Envelope, ListOf, PaginationQuery, Uuid } from "../../http/schemas";
import { AUDIT_ACTIONS } from "./audit-fields";

export const AuditActionSchema = Choice(AUDIT_ACTIONS, { title: "AuditAction" });

export const AuditListQuery = t.Object({
  action: t.Optional(AuditActionSchema),
  actor: t.Optional(t.String({ format: "uuid", description: "the acting user's id" })),
  ...PaginationQuery,
});
export type AuditListQueryInput = typeof AuditListQuery.static;

export const AuditChange = t.Object({ before: t.Unknown(), after: t.Unknown() }, { title: "AuditChange" });

export const AuditEventSchema = t.Object(
  {
    id: Uuid,
    createdAt: DateTime,
    action: AuditActionSchema,
    targetType: t.String({
      description: "domain, domain_role, user, domain_invitation, problem, problem_config, problem_set or record",
    }),
    targetId: Uuid,
    domainId: t.Nullable(Uuid),
    actorId: t.Nullable(Uuid),
    actorUsername: t.Nullable(t.String({ description: "the actor's username at the time" })),
    ip: t.Nullable(t.String({ description: "the client address (TRUSTED_PROXIES honoured)" })),
    changes: t.Record(t.String(), AuditChange, {
      description: 'the changed fields only; secrets show as "[redacted]"',
    }),
  },
  { title: "AuditEvent" },
);
export type AuditEventView = typeof AuditEventSchema.static;

export const AuditEventListResp = Envelope(ListOf(AuditEventSchema, "AuditEventList"), "AuditEventListResp");
