import type { EntityManager } from "@mikro-orm/postgresql";
import type { EntityName } from "@mikro-orm/core";
import { audit, type AuditActor } from "./audit.service";
import { pick, type AuditAction, type AuditTargetType } from "./audit-fields";

/**
 * The two shapes every staff edit and removal takes, once: the audited fields read before and after a
 * change (its event written by the same flush), and a row removed with its last fields kept in the log.
 */
export interface Audited<T extends { id: string }, K extends keyof T & string> {
  action: AuditAction;
  type: AuditTargetType;
  row: T;
  fields: readonly K[];
  domainId: string | null;
}

/** Applies `change` to the row and flushes it with the event of what it changed. */
export async function auditedUpdate<T extends { id: string }, K extends keyof T & string>(
  em: EntityManager,
  actor: AuditActor,
  what: Audited<T, K>,
  change: () => Promise<void> | void,
): Promise<T> {
  const before = pick(what.row, what.fields);
  await change();
  const target = { type: what.type, id: what.row.id };
  audit(em, actor, {
    action: what.action,
    target,
    domainId: what.domainId,
    before,
    after: pick(what.row, what.fields),
  });
  await em.flush();
  return what.row;
}

/** Deletes the row (one native statement) and records its fields, in one transaction. */
export async function auditedDelete<T extends { id: string }, K extends keyof T & string>(
  em: EntityManager,
  actor: AuditActor,
  what: Audited<T, K>,
  entity: EntityName<T>,
): Promise<void> {
  await em.transactional(async (tx) => {
    const target = { type: what.type, id: what.row.id };
    audit(tx, actor, { action: what.action, target, domainId: what.domainId, before: pick(what.row, what.fields) });
    await tx.nativeDelete(entity, { id: what.row.id } as never);
  });
}

/** Flushes a new row with the event of its creation. */
export async function auditedCreate<T extends { id: string }, K extends keyof T & string>(
  em: EntityManager,
  actor: AuditActor,
  what: Audited<T, K>,
): Promise<T> {
  const target = { type: what.type, id: what.row.id };
  audit(em, actor, { action: what.action, target, domainId: what.domainId, after: pick(what.row, what.fields) });
  await em.flush();
  return what.row;
}
