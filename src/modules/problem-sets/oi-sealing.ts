import type { EntityManager } from "@mikro-orm/postgresql";
import { uuidArray } from "../../db/addressing";
import type { DomainAccess } from "../identity/access";
import { holds } from "../identity/access-rules";
import { SEAL_SQL } from "./oi-sealing.sql";

/**
 * OI's sealed results (docs/contests.md "OI"): until an OI set's end (its lock time, else its due time), or
 * until staff publish its results (unfreeze), nobody but those who manage sets sees a result of a record
 * submitted through it — their own neither: on the board, in the records list and page, in their live
 * updates and in a problem's latest record, a judged record reads `judging` with nothing of its outcome.
 */

interface SetSeal {
  rule: string;
  end: number | null;
  unfrozen: boolean;
  readAt: number;
}

/** How long a set's rule and times are trusted in this process (a rule changed mid-contest shows within it). */
const TRUST_MS = 2_000;
const seals = new Map<string, SetSeal>();

/** The sets among `setIds` whose results are sealed from this caller now. */
export async function sealedSets(
  em: EntityManager,
  access: DomainAccess,
  setIds: readonly (string | null)[],
  now = Date.now(),
): Promise<Set<string>> {
  if (holds(access, "problemSet.viewHidden")) return new Set();
  const ids = [...new Set(setIds.filter((id): id is string => id !== null))];
  const stale = ids.filter((id) => (seals.get(id)?.readAt ?? 0) < now - TRUST_MS);
  if (stale.length > 0) {
    const rows = await em.execute<{ id: string; rule: string; end: Date | null; unfrozen: boolean }[]>(SEAL_SQL, [
      uuidArray(stale),
    ]);
    for (const row of rows)
      seals.set(row.id, {
        rule: row.rule,
        end: row.end ? new Date(row.end).getTime() : null,
        unfrozen: row.unfrozen,
        readAt: now,
      });
    if (seals.size > 10_000) seals.clear();
  }
  return new Set(ids.filter((id) => isSealed(seals.get(id), now)));
}

const isSealed = (seal: SetSeal | undefined, now: number) =>
  seal?.rule === "oi" && !seal.unfrozen && (seal.end === null || now < seal.end);

/**
 * Whether a record's set, read with the record (records.sql.ts, DETAIL_SQL's seal columns: null without a
 * set), seals its results from this caller now: sealedSets' rule on a fresh read.
 */
export function sealedWithRecord(
  access: DomainAccess,
  set: { sealRule: string | null; sealEnd: Date | string | null; sealUnfrozen: boolean | null },
  now = Date.now(),
): boolean {
  if (set.sealRule === null || holds(access, "problemSet.viewHidden")) return false;
  const end = set.sealEnd === null ? null : new Date(set.sealEnd).getTime();
  return isSealed({ rule: set.sealRule, end, unfrozen: set.sealUnfrozen === true, readAt: now }, now);
}

const FINAL = new Set(["accepted", "rejected", "failed"]);

/** A record's view with its outcome taken out: a judged record reads `judging`, its score and limits 0. */
export function sealed<
  T extends { state: string; score: number; timeMs: number; memoryKb: number; judgedAt: string | null },
>(view: T): T {
  if (!FINAL.has(view.state)) return view;
  return { ...view, state: "judging", score: 0, timeMs: 0, memoryKb: 0, judgedAt: null };
}
