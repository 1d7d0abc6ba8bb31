import type { EntityManager } from "@mikro-orm/postgresql";
import { pageWindow, parseOrdering, type ListPage } from "../../db/listing";
import { rows } from "../../db/statements";
import { type AuditFilter, type AuditOrdering, auditPageSql } from "./audit.sql";
import { AuditEvent } from "./audit-event.entity";
import { diffFields, type AuditAction, type AuditFields, type AuditTargetType } from "./audit-fields";
import type { AuditEventView, AuditListQueryInput } from "./audit.schemas";

/** Who acted: the user (their name at the time) and the client address. An HTTP actor or a domain standing is one. */
export interface AuditActor {
  user: { id: string; username: string } | null;
  ip?: string | null;
}

export interface AuditInput {
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  domainId?: string | null;
  /** Snapshots of the target's fields before and after (null: it did not exist); only the changes are kept. */
  before?: AuditFields | null;
  after?: AuditFields | null;
  /** Fields kept even when unchanged: which part of the target the event is about (diffFields). */
  about?: readonly string[];
}

/**
 * Records a staff action. The event is persisted in `em`, not written yet: the change's own flush
 * (or the end of its `em.transactional`) writes both in one transaction, so a change that fails leaves
 * no event and an event that cannot be written fails the change. Services that change rows with
 * native statements call this inside the transaction that runs them. An edit that changed nothing
 * (both snapshots given and equal) is no event.
 */
export function audit(em: EntityManager, actor: AuditActor, input: AuditInput): AuditEvent | null {
  const about = input.about ?? [];
  const changes = diffFields(input.before ?? null, input.after ?? null, about);
  const changed = Object.keys(changes).filter((field) => !about.includes(field));
  if (input.before && input.after && changed.length === 0) return null;
  return em.create(AuditEvent, {
    actorId: actor.user?.id ?? null,
    actorUsername: actor.user?.username ?? null,
    ip: actor.ip ?? null,
    action: input.action,
    targetType: input.target.type,
    targetId: input.target.id,
    domainId: input.domainId ?? null,
    changes,
  });
}

/**
 * A page of events, newest first unless `ordering` says otherwise, in one statement: the page's ids
 * come from an index alone (audit-event.entity.ts), then only those rows are read. `domainId` null is
 * the whole site (the admin log); the id follows the time's direction so the index serves the order.
 */
export async function listAuditEvents(
  em: EntityManager,
  domainId: string | null,
  query: AuditListQueryInput,
): Promise<ListPage<AuditEventView>> {
  const filters: AuditFilter[] = [];
  const values: unknown[] = [];
  const filter = (name: AuditFilter, value: string | undefined | null) => {
    if (value === undefined || value === null) return;
    filters.push(name);
    values.push(value);
  };
  filter("domain", domainId);
  filter("action", query.action);
  filter("actor", query.actor?.toLowerCase());
  const ordering = parseOrdering(query.ordering, { created_at: "createdAt" });
  ordering.id = ordering.createdAt;
  const { offset, limit } = pageWindow(query);
  const [page] = await rows<{ n: number; results: AuditEventView[] }>(
    em,
    auditPageSql(filters, Object.entries(ordering) as AuditOrdering),
    [...values, limit, offset, ...values],
  );
  return { count: page.n, results: page.results };
}
