import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { createdProperties } from "../../db/base-properties";
import type { AuditChanges } from "./audit-fields";

/**
 * One staff action, written in the transaction of the change it records (audit.service.ts). Append
 * only. No foreign keys: an event outlives its actor, its target and its domain (a domain's deletion
 * is itself an event), and the names it shows are those of the time.
 */
export const AuditEvent = defineEntity({
  name: "AuditEvent",
  tableName: "audit_events",
  indexes: [
    // Each list and filter in page order with the id, so a page's offset is found on the index alone.
    { name: "audit_events_domain_index", properties: ["domainId", "createdAt", "id"] },
    { name: "audit_events_domain_action_index", properties: ["domainId", "action", "createdAt", "id"] },
    { name: "audit_events_actor_index", properties: ["actorId", "createdAt", "id"] },
    { name: "audit_events_created_index", properties: ["createdAt", "id"] },
  ],
  properties: {
    ...createdProperties,
    /** The staff member (null: their account is unknown, e.g. a config committed for a vanished user). */
    actorId: p.uuid().nullable(),
    actorUsername: p.string().length(255).nullable(),
    /** The client address as src/http/client-ip.ts resolves it (TRUSTED_PROXIES honoured); null outside HTTP. */
    ip: p.string().length(64).nullable(),
    action: p.string().length(64),
    targetType: p.string().length(32),
    targetId: p.uuid(),
    domainId: p.uuid().nullable(),
    /** `{field: {before, after}}`, changed fields only, secrets redacted (audit-fields.ts). */
    changes: p.json<AuditChanges>().defaultRaw("'{}'::jsonb"),
  },
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
