import type { EntityManager } from "@mikro-orm/postgresql";
import type { EntityName } from "@mikro-orm/core";
import { audit, type AuditActor } from "./audit.service";
import { pick, type AuditAction, type AuditFields, type AuditTargetType } from "./audit-fields";

/**
 * The two shapes every staff edit and removal takes, once: the audited fields read before and after a
 * change (its event written by the same flush), and a row removed with its last fields kept in the log.
 */
export interface Audited<T extends { id: string }, K extends keyof T & string> {
  action: AuditAction;
  type: AuditTargetType;
  row: T;
  /** The fields the log keeps, or how to read them where they are not plain fields (a role's flags). */
  fields: readonly K[] | ((row: T) => AuditFields);
  domainId: string | null;
}

function snapshot<T extends { id: string }, K extends keyof T & string>(what: Audited<T, K>): AuditFields {
  return typeof what.fields === "function" ? what.fields(what.row) : pick(what.row, what.fields);
}

/** Applies `change` to the row and flushes it with the event of what it changed. */
export async function auditedUpdate<T extends { id: string }, K extends keyof T & string>(
  em: EntityManager,
  actor: AuditActor,
  what: Audited<T, K>,
  change: () => Promise<void> | void,
): Promise<T> {
  const before = snapshot(what);
  await change();
  const target = { type: what.type, id: what.row.id };
  audit(em, actor, {
    action: what.action,
    target,
    domainId: what.domainId,
    before,
    after: snapshot(what),
  });
  await em.flush();
  return what.row;
}

/** Copies the fields an edit gives onto the row, for `change`: an absent key leaves its field as it is. */
export function assignGiven<T extends object, K extends keyof T & string>(
  row: T,
  input: { [P in K]?: T[P] },
  keys: readonly K[],
): void {
  for (const key of keys) if (input[key] !== undefined) row[key] = input[key] as T[K];
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
    audit(tx, actor, { action: what.action, target, domainId: what.domainId, before: snapshot(what) });
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
  audit(em, actor, { action: what.action, target, domainId: what.domainId, after: snapshot(what) });
  await em.flush();
  return what.row;
}
