import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError, HttpError, permissionDenied } from "../errors";
import { byUrlOrId, isUuid } from "../db/addressing";
import { User } from "../modules/users/user.entity";
import { row } from "../db/statements";
import { Domain } from "../modules/domains/domain.entity";
import { DomainUser } from "../modules/domains/domain-user.entity";
import { DomainRole } from "../modules/domains/domain-role.entity";
import {
  DEFAULT_DOMAIN_ROLES, DOMAIN_GUEST_ROLE, DOMAIN_ROOT_ROLE, effectiveDomainPermissions, hasDomainPermission,
  isJudger, isSiteRoot, normalizePermissionSet, permissionWords, siteRoleGrants, uniformPermissions,
  type DomainPermission, type DomainPermissionSet, type SitePermission,
} from "./permissions";

/** What a route may require: a domain permission, or a site permission written `site:<scope>.<flag>`. */
export type RoutePermission = DomainPermission | `site:${SitePermission}`;
/** One permission, all of a list, or any of a set. */
export type PermissionRule = RoutePermission | RoutePermission[] | { anyOf: RoutePermission[] };

/** The caller's standing in one domain, read from the database for this request. */
export interface DomainAccess {
  user: User;
  domain: Domain;
  membership: DomainUser | null;
  /** The member's role, or `guest` for a non-member. */
  role: string;
  /** Effective permissions: site grants and the domain role combined (Horse's check order). */
  permissions: DomainPermissionSet;
  isOwner: boolean;
  /** The client address, set by the HTTP layer (auth.plugin.ts) for the audit log; null elsewhere. */
  ip: string | null;
}

/**
 * Finds the domain (url or id, hidden or not) and the caller's standing in it, in one query: the
 * domain, the membership and the role's permissions, read fresh on every request (a demotion applies
 * at once) and mapped into the request's EntityManager as the entities the services use.
 */
export async function loadDomainAccess(em: EntityManager, user: User, domainRef: string): Promise<DomainAccess> {
  const where = byUrlOrId(domainRef);
  const found = await row<StandingRow>(em, standingSql("id" in where ? "d.id" : "d.url", "where u.id = ?"),
    ["id" in where ? where.id : where.url, DOMAIN_GUEST_ROLE, user.id]);
  return standingOf(em, user, found);
}

/**
 * The caller (by the id of a verified token) and their standing in a domain, in one prepared
 * statement: an authenticated domain route reads the database once before its own query. Null when
 * the user does not exist or is deactivated (a 401).
 */
export async function loadUserAndDomainAccess(em: EntityManager, userId: string, domainRef: string): Promise<{ user: User; access: () => DomainAccess } | null> {
  if (!isUuid(userId)) return null;
  const where = byUrlOrId(domainRef);
  const found = await row<StandingRow & { u: Record<string, unknown> }>(em,
    standingSql("id" in where ? "d.id" : "d.url", "where u.id = ? and u.is_active", "to_json(u) as u,"),
    ["id" in where ? where.id : where.url, DOMAIN_GUEST_ROLE, userId.toLowerCase()]);
  if (!found) return null;
  const user = em.map(User, found.u);
  return { user, access: () => standingOf(em, user, found) };
}

// The user row is always there (the caller); the domain, membership and role rows may not be.
const standingSql = (domainKey: string, where: string, user = "") =>
  `select ${user} to_json(d) as d, m.id as m_id, m.created_at as m_created_at, m.updated_at as m_updated_at, m.role as m_role,
          r.permission as r_permission
     from users u
     left join domains d on ${domainKey} = ?
     left join domain_users m on m.domain_id = d.id and m.user_id = u.id
     left join domain_roles r on r.domain_id = d.id and r.role = coalesce(m.role, ?)
    ${where}`;

interface StandingRow {
  d: Record<string, unknown> | null; m_id: string | null; m_created_at: string | null; m_updated_at: string | null;
  m_role: string | null; r_permission: unknown;
}

function standingOf(em: EntityManager, user: User, found: StandingRow | null): DomainAccess {
  if (!found?.d) throw new BizError("DomainNotFoundError", "domain not found");
  const domain = em.map(Domain, found.d);
  const { m_id, m_created_at, m_updated_at, m_role, r_permission } = found;
  const membership = m_id
    ? em.map(DomainUser, { id: m_id, created_at: m_created_at, updated_at: m_updated_at, domain_id: domain.id, user_id: user.id, role: m_role })
    : null;
  const role = membership?.role ?? DOMAIN_GUEST_ROLE;
  const stored = r_permission === null ? null : (r_permission as DomainPermissionSet);
  return standing(user, domain, membership, role, stored);
}

export async function accessFor(em: EntityManager, user: User, domain: Domain): Promise<DomainAccess> {
  const membership = await em.findOne(DomainUser, { domain, user });
  const role = membership?.role ?? DOMAIN_GUEST_ROLE;
  const row = role === DOMAIN_ROOT_ROLE ? null : await em.findOne(DomainRole, { domain, role });
  return standing(user, domain, membership, role, row ? (row.permission as DomainPermissionSet) : null);
}

/** The caller's effective permissions from the role's stored set (null: the role has no row). */
function standing(user: User, domain: Domain, membership: DomainUser | null, role: string, stored: DomainPermissionSet | null): DomainAccess {
  const isOwner = domain.owner?.id === user.id;
  const rolePermissions = role === DOMAIN_ROOT_ROLE ? uniformPermissions(true)
    : stored ? normalizePermissionSet(stored, uniformPermissions(false))
      : (DEFAULT_DOMAIN_ROLES[role as keyof typeof DEFAULT_DOMAIN_ROLES]?.() ?? uniformPermissions(false));
  const permissions = effectiveDomainPermissions({ siteRole: user.role, isOwner, domainRole: role, rolePermissions });
  return { user, domain, membership, role, permissions, isOwner, ip: null };
}

/** Horse's "domain root": the site root, a member with role `root`, or the owner. */
export function isDomainRoot(access: DomainAccess): boolean {
  return isSiteRoot(access.user.role) || access.isOwner || access.role === DOMAIN_ROOT_ROLE;
}

/**
 * A hidden domain exists only for its members, for holders of site `domain.view_hidden`, and for
 * site judgers (who judge records in every domain and hold nothing else there).
 */
export function canSeeDomain(access: DomainAccess): boolean {
  return !access.domain.hidden || access.membership !== null || siteRoleGrants(access.user.role, "domain.view_hidden")
    || isJudger(access.user.role);
}

export function assertDomainVisible(access: DomainAccess): void {
  if (!canSeeDomain(access)) throw new BizError("DomainNotFoundError", "domain not found");
}

function grants(access: DomainAccess, permission: RoutePermission): boolean {
  if (permission.startsWith("site:")) return siteRoleGrants(access.user.role, permission.slice(5) as SitePermission);
  return hasDomainPermission(access.permissions, permission as DomainPermission);
}

/** Checks a route's declared rule; a refusal is Horse's 403 naming the (first) missing permission. */
export function assertPermitted(access: DomainAccess, rule: PermissionRule): void {
  if (Array.isArray(rule)) {
    for (const permission of rule) assertPermitted(access, permission);
    return;
  }
  const options = typeof rule === "string" ? [rule] : rule.anyOf;
  if (options.some((permission) => grants(access, permission))) return;
  const first = options[0].replace(/^site:/, "") as DomainPermission | SitePermission;
  const [scope, flag] = permissionWords(first);
  throw permissionDenied(scope, flag);
}

/** Whether the caller holds a domain permission (for what a route shows, not whether it runs). */
export function holds(access: DomainAccess, permission: DomainPermission): boolean {
  return hasDomainPermission(access.permissions, permission);
}

/** Deleting a domain is the owner's or the site root's decision alone. */
export function assertCanDeleteDomain(access: DomainAccess): void {
  if (!access.isOwner && !isSiteRoot(access.user.role)) throw new HttpError(403, "domain delete Permission Denied.");
}

/** Transferring ownership: the owner or the site root (Horse's rule and error). */
export function assertCanTransferDomain(access: DomainAccess): void {
  if (!access.isOwner && !isSiteRoot(access.user.role)) {
    throw new BizError("DomainNotOwnerError", "only the owner or a site root can transfer the domain");
  }
}

/** Granting, changing or removing the `root` role needs domain root. */
export function assertDomainRoot(access: DomainAccess, message: string): void {
  if (!isDomainRoot(access)) throw new BizError("DomainNotRootError", message);
}

/** Only the owner or a site root may demote or remove the owner's own membership. */
export function assertMayChangeOwnerMembership(access: DomainAccess, targetUserId: string): void {
  const targetIsOwner = access.domain.owner?.id === targetUserId;
  if (targetIsOwner && !access.isOwner && !isSiteRoot(access.user.role)) {
    throw new BizError("DomainNotOwnerError", "only the owner or a site root can change the owner's membership");
  }
}

/**
 * Anyone logged in may read their own permissions in a domain (the invitation join page does, before
 * joining); reading another member's needs what reading the domain needs.
 */
export function assertMayReadPermissionsOf(access: DomainAccess, userRef: string): void {
  if (userRef === "me" || userRef.toLowerCase() === access.user.id) return;
  assertDomainVisible(access);
  assertPermitted(access, "general.view");
}
