import type { EntityManager } from "@mikro-orm/postgresql";
import { readRows } from "../../db/statements";
import { uuidArray, isUuid } from "../../db/addressing";
import { BoundedMap } from "../../runtime/bounded-map";
import { RUN_CHANGE } from "./record-events.bus";
import { OWNERS_SQL } from "./record-events.sql";

/**
 * Whose each changed record (its committer) or run (its owner) is, for the list streams of one process:
 * every change in a domain reaches every list stream there, and a student's stream can show only the
 * student's own, so it need not read anything for a burst of others' changes (record-events.service.ts).
 * One statement per burst answers every stream of the process (concurrent asks for an id share it), and an
 * owner never changes, so what was read is kept.
 */

const known = new BoundedMap<string, Promise<string | null>>(50_000);

/** The owner of each change id (a record's id, or `run:` and a run's id); null when there is none. */
export async function ownersOf(
  em: EntityManager,
  domainId: string,
  ids: string[],
): Promise<Map<string, string | null>> {
  const key = (id: string) => `${domainId}:${id}`;
  // Held here, not looked up again: a burst of more ids than the cache keeps would push its own out.
  const pending = new Map<string, Promise<string | null>>();
  const missing: string[] = [];
  for (const id of ids) {
    const kept = known.get(key(id));
    if (kept) pending.set(id, kept);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const uuid = (id: string) => (id.startsWith(RUN_CHANGE) ? id.slice(RUN_CHANGE.length) : id);
    const records = missing.filter((id) => !id.startsWith(RUN_CHANGE) && isUuid(id));
    const runs = missing.filter((id) => id.startsWith(RUN_CHANGE) && isUuid(uuid(id))).map(uuid);
    const read = readRows<{ id: string; owner: string | null }>(em, OWNERS_SQL, [
      domainId,
      uuidArray(records),
      domainId,
      uuidArray(runs),
    ]).then((rows) => new Map(rows.map((row) => [row.id, row.owner])));
    for (const id of missing) {
      const owner = read.then((found) => found.get(id) ?? null);
      // A failed read is not kept: the next burst asks again.
      owner.catch(() => known.delete(key(id)));
      known.set(key(id), owner);
      pending.set(id, owner);
    }
  }
  const owners = new Map<string, string | null>();
  for (const [id, owner] of pending) owners.set(id, await owner);
  return owners;
}
