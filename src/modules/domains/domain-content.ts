import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { Domain } from "./domain.entity";
import { DOMAIN_CONTENT, domainContentSql } from "./domains.sql";

/** The tables a domain's content lives in (domains.sql.ts, where their statements are). */
export { DOMAIN_CONTENT };

/** The domain a row of its content belongs to (defineEntity's lazy relation types `domain` loosely). */
export const domainIdOf = (row: { domain: unknown }): string => (row.domain as Domain).id;

/** How the view of each addressable piece of a domain's content opens: its id, its domain's, its url. */
export const contentAddress = (row: { id: string; url: string; domain: unknown }) => ({
  id: row.id,
  domainId: domainIdOf(row),
  url: row.url,
});

/** What a problem's and a set's views both show of their use: submissions, accepted ones, the owner. */
export const contentTally = (row: { numSubmit: number; numAccept: number; owner?: { id: string } | null }) => ({
  numSubmit: row.numSubmit,
  numAccept: row.numAccept,
  ownerId: row.owner?.id ?? null,
});

export async function assertDomainEmpty(em: EntityManager, domain: Domain): Promise<void> {
  for (const { table, label } of DOMAIN_CONTENT) {
    const [row] = await em.execute<{ n: number }[]>(domainContentSql(table), [domain.id]);
    if (row.n > 0)
      throw new BizError("IntegrityError", `the domain still holds ${row.n} ${label}; delete or move them first`);
  }
}
