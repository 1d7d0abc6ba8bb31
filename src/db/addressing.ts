import type { EntityManager } from "@mikro-orm/postgresql";
import type { EntityName, FilterQuery } from "@mikro-orm/core";
import { BizError } from "../core/errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A PostgreSQL `uuid[]` literal for `= any(?::uuid[])` (the ids must be UUIDs, as from our rows). */
export function uuidArray(ids: string[]): string {
  if (!ids.every(isUuid)) throw new Error("uuidArray: not a list of UUIDs");
  return `{${ids.join(",")}}`;
}

/**
 * Horse's url-or-id addressing: a path segment that parses as a UUID is an id, anything else a url
 * slug. Slugs can never be UUIDs (URL_SLUG_PATTERN), so the two never collide.
 */
export function byUrlOrId(ref: string): { id: string } | { url: string } {
  return isUuid(ref) ? { id: ref.toLowerCase() } : { url: ref };
}

/** `[A-Za-z0-9_-]+`: what a url slug may contain (empty means "use the id"). */
export const URL_SLUG_PATTERN = "^[A-Za-z0-9_-]*$";

/**
 * A url slug must be free in its scope (site-wide for domains, per domain for the rest). Checked
 * before writing so the caller gets a message naming the slug; the unique index stays the backstop.
 */
export async function assertSlugFree<T extends { id: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T> & { url: string },
  what: string,
  exceptId?: string,
): Promise<void> {
  const taken = await em.findOne(entity, where);
  if (taken && taken.id !== exceptId)
    throw new BizError("IntegrityError", `url "${where.url}" is already used by another ${what}`);
}
