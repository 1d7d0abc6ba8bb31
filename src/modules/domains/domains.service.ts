import type { EntityManager } from "@mikro-orm/postgresql";
import { urlSlugs } from "../../db/addressing";
import { BizError, permissionDenied } from "../../core/errors";
import { pageWindow, parseOrdering, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { DomainAccess } from "../identity/access";
import { assertCanDeleteDomain, assertCanTransferDomain, canSeeDomain } from "../identity/access-rules";
import { DEFAULT_DOMAIN_ROLES, DOMAIN_ROOT_ROLE, hasDomainPermission, siteRoleGrants } from "../identity/permissions";
import type { User } from "../users/user.entity";
import { resolveUserRef } from "../users/users.service";
import { Domain } from "./domain.entity";
import { DomainUser } from "./domain-user.entity";
import { DomainRole } from "./domain-role.entity";
import { assertDomainEmpty } from "./domain-content";
import { SEARCH_GROUPS_SQL } from "./domains.sql";
import type { DomainCreateInput, DomainDetailView, DomainEditInput, DomainView } from "./domains.schemas";
import { audit } from "../audit/audit.service";
import { pick } from "../audit/audit-fields";
import { assignGiven, auditedUpdate } from "../audit/audited";

const AUDITED = ["url", "name", "gravatar", "bulletin", "hidden", "group"] as const;

const slugs = urlSlugs(Domain, "domain");

/** A domain, its four default roles and its creator as owner and `root` member: all or nothing. */
export async function createDomain(em: EntityManager, creator: User, input: DomainCreateInput): Promise<Domain> {
  return em.transactional(async (tx) => {
    const { id, url } = await slugs.fresh(tx, {}, input.url);
    const domain = tx.create(Domain, {
      id,
      url,
      name: input.name,
      gravatar: input.gravatar ?? "",
      bulletin: input.bulletin ?? "",
      hidden: input.hidden ?? true,
      group: input.group ?? "",
      owner: creator,
    });
    for (const [role, permissions] of Object.entries(DEFAULT_DOMAIN_ROLES)) {
      tx.create(DomainRole, { domain, role, permission: permissions() });
    }
    tx.create(DomainUser, { domain, user: creator, role: DOMAIN_ROOT_ROLE });
    await tx.flush();
    return domain;
  });
}

const DOMAIN_ORDERING = { created_at: "createdAt", updated_at: "updatedAt" };

/** The caller's domains (every user, site roots included, sees the domains they belong to). */
export async function listDomainsOf(
  em: EntityManager,
  user: User,
  query: ListQuery & { roles?: string[]; groups?: string[] },
): Promise<ListPage<Domain>> {
  const where: Record<string, unknown> = { user };
  if (query.roles?.length) where.role = { $in: query.roles };
  if (query.groups?.length) where.domain = { group: { $in: query.groups } };
  const { offset, limit } = pageWindow(query);
  const [rows, count] = await em.findAndCount(DomainUser, where, {
    populate: ["domain"],
    orderBy: { domain: parseOrdering(query.ordering, DOMAIN_ORDERING) },
    offset,
    limit,
  });
  return { count, results: rows.map((row) => row.domain as unknown as Domain) };
}

/** Distinct groups matching the text; groups of hidden domains only for their members or site viewers. */
export async function searchGroups(em: EntityManager, user: User, text: string): Promise<ListPage<string>> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const seesHidden = siteRoleGrants(user.role, "domain.view_hidden");
  const rows = await em.execute<{ group: string }[]>(SEARCH_GROUPS_SQL, [pattern, seesHidden, user.id]);
  return { count: rows.length, results: rows.map((r) => r.group) };
}

/**
 * The full domain for those who may view it; otherwise the public card an invitation page needs
 * (a hidden domain shows only id, url and name).
 */
export function viewDomain(access: DomainAccess): DomainDetailView {
  const { domain } = access;
  if (canSeeDomain(access) && hasDomainPermission(access.permissions, "general.view")) return toDomainDetail(domain);
  if (domain.hidden) return { id: domain.id, url: domain.url, name: domain.name };
  return publicCard(domain);
}

export async function updateDomain(em: EntityManager, access: DomainAccess, input: DomainEditInput): Promise<Domain> {
  const { domain } = access;
  // Groups organise the whole site, so only site-level editors may move a domain between them.
  if (input.group !== undefined && !siteRoleGrants(access.siteRole, "domain.edit"))
    throw permissionDenied("domain", "edit");
  const what = { action: "domain.update", type: "domain", row: domain, fields: AUDITED } as const;
  return auditedUpdate(em, access, { ...what, domainId: domain.id }, async () => {
    await slugs.change(em, {}, domain, input.url);
    assignGiven(domain, input, ["name", "gravatar", "bulletin", "hidden", "group"]);
  });
}

/** Horse never implemented this: the owner or a site root may delete an empty domain. */
export async function deleteDomain(em: EntityManager, access: DomainAccess): Promise<void> {
  assertCanDeleteDomain(access);
  await em.transactional(async (tx) => {
    await assertDomainEmpty(tx, access.domain);
    audit(tx, access, {
      action: "domain.delete",
      target: { type: "domain", id: access.domainId },
      domainId: access.domainId,
      before: { ...pick(access.domain, AUDITED), ownerId: access.domain.owner?.id },
    });
    await tx.nativeDelete(Domain, { id: access.domainId });
  });
}

/** Horse's order of checks: target exists → caller may transfer → target is not the owner → target is a root member. */
export async function transferDomain(em: EntityManager, access: DomainAccess, targetRef: string): Promise<Domain> {
  const target = await resolveUserRef(em, access.user, targetRef);
  assertCanTransferDomain(access);
  const { domain } = access;
  if (domain.owner?.id === target.id) throw new BizError("DomainNotOwnerError", "the user already owns the domain");
  const membership = await em.findOne(DomainUser, { domain, user: target });
  if (membership?.role !== DOMAIN_ROOT_ROLE)
    throw new BizError("DomainNotRootError", "the new owner must be a member with role root");
  audit(em, access, {
    action: "domain.transfer",
    target: { type: "domain", id: domain.id },
    domainId: domain.id,
    before: { ownerId: domain.owner?.id },
    after: { ownerId: target.id },
  });
  domain.owner = target;
  await em.flush();
  return domain;
}

/** A visible domain as anyone may see it: everything but who owns it. */
function publicCard(domain: Domain): Omit<DomainView, "ownerId"> {
  return {
    id: domain.id,
    url: domain.url,
    name: domain.name,
    gravatar: domain.gravatar,
    bulletin: domain.bulletin,
    hidden: domain.hidden,
    group: domain.group,
  };
}

export function toDomainView(domain: Domain): DomainView {
  return { ...publicCard(domain), ownerId: domain.owner?.id ?? null };
}

export function toDomainDetail(domain: Domain): DomainDetailView {
  return {
    ...toDomainView(domain),
    createdAt: isoTime(domain.createdAt),
    updatedAt: isoTime(domain.updatedAt),
    tag: domain.tag ?? null,
  };
}
