import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { Domain } from "./domain.entity";

/**
 * What a domain holds that must never be orphaned: a domain is deleted only when all of these are
 * empty. Problems, problem sets and records register their tables here as they arrive (issues 4, 5);
 * their foreign keys to `domains` use ON DELETE RESTRICT as the database's own backstop.
 */
export const DOMAIN_CONTENT: { table: string; label: string }[] = [
  { table: "problems", label: "problem(s)" },
  { table: "problem_sets", label: "problem set(s)" },
  { table: "records", label: "record(s)" },
];

export async function assertDomainEmpty(em: EntityManager, domain: Domain): Promise<void> {
  for (const { table, label } of DOMAIN_CONTENT) {
    const [row] = await em.execute<{ n: number }[]>(`select count(*)::int as n from "${table}" where domain_id = ?`, [
      domain.id,
    ]);
    if (row.n > 0)
      throw new BizError("IntegrityError", `the domain still holds ${row.n} ${label}; delete or move them first`);
  }
}
