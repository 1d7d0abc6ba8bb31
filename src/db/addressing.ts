import type { EntityManager } from "@mikro-orm/postgresql";
import type { EntityName, FilterQuery, ObjectQuery } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
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
 * The url slugs of one kind of row, in its scope (site-wide for domains, per domain for the rest), by
 * Horse's rule: no slug (or an empty one) means the row's id. A slug must be free in its scope, checked
 * before writing so the caller gets a message naming the slug; the unique index stays the backstop.
 */
export function urlSlugs<T extends { id: string; url: string }>(entity: EntityName<T>, what: string) {
  async function assertFree(em: EntityManager, scope: ObjectQuery<T>, url: string, exceptId?: string): Promise<void> {
    const taken = await em.findOne(entity, { ...scope, url } as FilterQuery<T>);
    if (taken && taken.id !== exceptId)
      throw new BizError("IntegrityError", `url "${url}" is already used by another ${what}`);
  }
  return {
    /** A new row's id, and its url: the one asked for, or the id. */
    async fresh(
      em: EntityManager,
      scope: ObjectQuery<T>,
      asked: string | undefined,
    ): Promise<{ id: string; url: string }> {
      const id = randomUUID();
      const url = asked || id;
      await assertFree(em, scope, url);
      return { id, url };
    },
    /** An edit's url, when it gives one: `null` or `""` gives the row its id back. */
    async change(em: EntityManager, scope: ObjectQuery<T>, row: T, asked: string | null | undefined): Promise<void> {
      if (asked === undefined) return;
      const url = asked || row.id;
      await assertFree(em, scope, url, row.id);
      row.url = url;
    },
  };
}
