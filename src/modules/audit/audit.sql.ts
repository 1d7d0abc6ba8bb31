import type { OrderDirection } from "../../db/listing";
import { isoSql } from "../../db/statements";

/**
 * The audit log's hand-written SQL; tests/db/statements-prepare.test.ts prepares every one of
 * SAMPLE_STATEMENTS against the migrated schema.
 */

/** The log's order fields and their columns. */
export const AUDIT_ORDER_COLUMNS = { createdAt: "created_at", id: "id" } as const;
export type AuditOrdering = [property: keyof typeof AUDIT_ORDER_COLUMNS, direction: OrderDirection][];

/** The log's filters and their columns; each filter given is one placeholder. */
export const AUDIT_FILTER_COLUMNS = { domain: "domain_id", action: "action", actor: "actor_id" } as const;
export type AuditFilter = keyof typeof AUDIT_FILTER_COLUMNS;

const ROW_JSON = `json_build_object('id', a.id, 'createdAt', ${isoSql("a.created_at")}, 'action', a.action,
  'targetType', a.target_type, 'targetId', a.target_id, 'domainId', a.domain_id, 'actorId', a.actor_id,
  'actorUsername', a.actor_username, 'ip', a.ip, 'changes', a.changes)`;

/**
 * A page of events and their count, in one statement: the page's ids come from an index alone
 * (audit-event.entity.ts), then only those rows are read. Parameters: the filters' (in order), limit,
 * offset, the filters' again.
 */
export function auditPageSql(filters: readonly AuditFilter[], ordering: AuditOrdering): string {
  const where = filters.map((filter) => `${AUDIT_FILTER_COLUMNS[filter]} = ?`);
  const order = ordering.map(([property, direction]) => `${AUDIT_ORDER_COLUMNS[property]} ${direction}`);
  const condition = where.length ? `where ${where.join(" and ")}` : "";
  return `with page as (select id from audit_events ${condition} order by ${order.join(", ")} limit ? offset ?)
     select (select count(*)::int from audit_events ${condition}) as n,
            coalesce((select json_agg(${ROW_JSON} order by ${order.map((o) => `a.${o}`).join(", ")})
              from page join audit_events a on a.id = page.id), '[]') as results`;
}

const SAMPLE_FILTERS: AuditFilter[][] = [[], ["domain"], ["action"], ["actor"], ["domain", "action", "actor"]];

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = SAMPLE_FILTERS.flatMap((filters) =>
  (["desc", "asc"] as const).map((direction) =>
    auditPageSql(filters, [
      ["createdAt", direction],
      ["id", direction],
    ]),
  ),
);
