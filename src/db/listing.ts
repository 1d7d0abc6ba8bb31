import type { EntityManager } from "@mikro-orm/postgresql";
import type { EntityName, FilterQuery, OrderDefinition } from "@mikro-orm/core";
import { BizError } from "../core/errors";

export interface ListQuery {
  offset?: number;
  limit?: number;
  ordering?: string;
}

export interface ListPage<T> {
  count: number;
  results: T[];
}

export type OrderDirection = "asc" | "desc";

/** Wire field names (Horse's snake_case) mapped to entity properties. */
export const TIMESTAMP_ORDERING = { created_at: "createdAt", updated_at: "updatedAt" } as const;

/**
 * Horse's `ordering`: comma-separated fields, `-` for descending, unknown fields are
 * `IllegalFieldError`. With no ordering the list is newest first; the id always breaks ties, so
 * paging never skips or repeats a row.
 */
export function parseOrdering(
  ordering: string | undefined,
  allowed: Record<string, string> = TIMESTAMP_ORDERING,
): Record<string, OrderDirection> {
  const order: Record<string, OrderDirection> = {};
  for (const raw of (ordering ?? "").split(",")) {
    const token = raw.trim();
    if (token === "") continue;
    const descending = token.startsWith("-");
    const field = descending ? token.slice(1) : token;
    const property = Object.hasOwn(allowed, field) ? allowed[field] : undefined;
    if (!property) throw new BizError("IllegalFieldError", `${token} is not available in ordering fields`);
    if (!(property in order)) order[property] = descending ? "desc" : "asc";
  }
  if (Object.keys(order).length === 0) order.createdAt = "desc";
  if (!("id" in order)) order.id = "asc";
  return order;
}

export function pageWindow(query: ListQuery): { offset: number; limit: number } {
  return { offset: query.offset ?? 0, limit: query.limit ?? 100 };
}

/** One page of an entity's rows in the query's ordering, and how many rows there are in all. */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<NoInfer<T>>,
  query: ListQuery,
): Promise<ListPage<T>> {
  const { offset, limit } = pageWindow(query);
  const [results, count] = await em.findAndCount(entity, where, {
    // The default ordering's properties (createdAt, updatedAt, id) are every entity's; TypeScript cannot tell.
    orderBy: parseOrdering(query.ordering) as OrderDefinition<T>,
    offset,
    limit,
  });
  return { count, results };
}
