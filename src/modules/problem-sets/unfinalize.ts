import type { EntityManager } from "@mikro-orm/postgresql";
import { audit } from "../audit/audit.service";
import type { DomainAccess } from "../identity/access";
import { UNFINALIZE_SQL } from "./problem-sets.sql";

/**
 * A rejudge of a record of a finalized set un-finalizes it, loudly (docs/contest-api.md "The ceremony"): the
 * results are no longer final (the Contest API's `finalized` goes back to null and its feed says so), an audit
 * event names who and why, and staff finalize again once the rejudge is checked. Runs in the caller's
 * transaction. Answers the sets it un-finalized.
 */
export async function unfinalize(
  em: EntityManager,
  access: DomainAccess,
  sets: { ids?: readonly string[]; ofRecord?: string; ofProblem?: string },
  why: string,
): Promise<string[]> {
  const ids = sets.ids ? `{${sets.ids.join(",")}}` : null;
  const rows = await em.execute<{ id: string; finalized_at: Date }[]>(UNFINALIZE_SQL, [
    access.domainId,
    ids,
    sets.ofRecord ?? null,
    sets.ofProblem ?? null,
  ]);
  for (const row of rows)
    audit(em, access, {
      action: "problem_set.unfinalize",
      target: { type: "problem_set", id: row.id },
      domainId: access.domainId,
      before: { finalizedAt: new Date(row.finalized_at).toISOString() },
      after: { finalizedAt: null, rejudged: why },
    });
  return rows.map((row) => row.id);
}
