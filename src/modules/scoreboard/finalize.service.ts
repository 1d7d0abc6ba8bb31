import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { auditedUpdate } from "../audit/audited";
import type { DomainAccess } from "../identity/access";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { endOf } from "./board-rules";

/**
 * Declaring a contest's results final (docs/contest-api.md "The ceremony"): after the end, once the last
 * judgement is checked, while the board may still be frozen. The Contest API's state then has `finalized`
 * with `thawed` still null, which is what the ICPC resolver waits for; the thaw (unfreeze) comes after the
 * reveal. Audited in the same transaction. Finalizing again keeps the first time.
 */
export function finalize(em: EntityManager, access: DomainAccess, set: ProblemSet, now = new Date()) {
  const end = endOf(set);
  if (!end)
    throw new BizError("Error", "this problem set has no end (no lockAt or dueAt): there is nothing to finalize");
  if (now < end) throw new BizError("Error", `the set ends at ${end.toISOString()}: finalize it after its end`);
  if (set.finalizedAt) return Promise.resolve(set);
  const what = { action: "problem_set.finalize", type: "problem_set", row: set, fields: ["finalizedAt"] } as const;
  return auditedUpdate(em, access, { ...what, domainId: access.domainId }, () => {
    set.finalizedAt = now;
  });
}
