import type { EntityManager } from "@mikro-orm/postgresql";
import { auditedUpdate } from "../audit/audited";
import type { DomainAccess } from "../identity/access";
import type { ProblemSet } from "../problem-sets/problem-set.entity";

/**
 * Unfreezing a board at the ceremony (docs/contests.md "A frozen board"): from now on everyone sees the live
 * board, and an OI set's results are published. Audited in the same transaction.
 */
export function unfreeze(em: EntityManager, access: DomainAccess, set: ProblemSet): Promise<ProblemSet> {
  const what = {
    action: "problem_set.unfreeze",
    type: "problem_set",
    row: set,
    fields: ["freezeAt", "unfrozenAt"],
  } as const;
  return auditedUpdate(em, access, { ...what, domainId: access.domainId }, () => {
    set.unfrozenAt = new Date();
  });
}
