import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError, HttpError, permissionDenied } from "../../core/errors";
import { byUrlOrId, isUuid } from "../../db/addressing";
import { User } from "../users/user.entity";
import { userProfileOf, type UserProfile, type UserRow } from "../users/users.service";
import { readRow } from "../../db/statements";
import { once } from "../../runtime/once";
import { acceptKey, keyStaleness, type KeyRow } from "./credentials/access-keys.service";
import { DOMAIN_KEY, type DomainKey, standingOfCallerSql, standingOfKeySql, standingOfUserSql } from "./identity.sql";
import { Domain } from "../domains/domain.entity";
import { DomainUser } from "../domains/domain-user.entity";
import { DomainRole } from "../domains/domain-role.entity";
import {
  DOMAIN_GUEST_ROLE,
  DOMAIN_ROOT_ROLE,
  hasDomainPermission,
  isJudger,
  isSiteRoot,
  keptPermissions,
  permissionWords,
  siteRoleGrants,
  type DomainPermission,
  type DomainPermissionSet,
  type SitePermission,
  type SiteRole,
} from "./permissions";

/** What a route may require: a domain permission, or a site permission written `site:<scope>.<flag>`. */
export type RoutePermission = DomainPermission | `site:${SitePermission}`;
/** One permission, all of a list, or any of a set. */
export type PermissionRule = RoutePermission | RoutePermission[] | { anyOf: RoutePermission[] };

/**
 * The caller's standing in one domain, read from the database for this request. `user`, `domain` and
 * `membership` are managed entities made from the row on first use: mapping an entity costs more than
 * the statement's round trip, and most reads need only the ids, the role and the permissions.
 */
export interface DomainAccess {
  readonly user: User;
  readonly domain: Domain;
  readonly membership: DomainUser | null;
  /** The caller's id and site role, and the domain's id and visibility, without mapping an entity. */
  userId: string;
  siteRole: SiteRole;
  domainId: string;
  domainHidden: boolean;
  isMember: boolean;
  /** The member's role, or `guest` for a non-member. */
  role: string;
  /** Effective permissions: site grants and the domain role combined (Horse's check order). Shared: never mutate. */
  permissions: DomainPermissionSet;
  isOwner: boolean;
  /** The client address, set by the HTTP layer (auth.plugin.ts) for the audit log; null elsewhere. */
  ip: string | null;
}

/**
 * The caller as a standing needs them: the id and site role now, the entity when a service asks, and
 * the profile (what `/users/me` shows) without an entity when the caller came from a row.
 */
export interface Principal {
  id: string;
  role: SiteRole;
  entity: () => User;
  profile: () => UserProfile;
}

export const principalOf = (user: User): Principal => ({
  id: user.id,
  role: user.role as SiteRole,
  entity: () => user,
  profile: () => user,
});

/**
 * Finds the domain (url or id, hidden or not) and the caller's standing in it, in one query: the
 * domain, the membership and the role's permissions, read fresh on every request (a demotion applies
 * at once); the domain and membership become entities of the request's EntityManager when first used.
 */
export async function loadDomainAccess(em: EntityManager, user: User, domainRef: string): Promise<DomainAccess> {
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow>(em, standingOfUserSql(domain.column), [
    domain.value,
    DOMAIN_GUEST_ROLE,
    user.id,
  ]);
  return standingOf(em, principalOf(user), found);
}

/**
 * The caller (by the id of a verified token) and their standing in a domain, in one prepared
 * statement: an authenticated domain route reads the database once before its own query. Null when
 * the user does not exist or is deactivated (a 401).
 */
export async function loadUserAndDomainAccess(
  em: EntityManager,
  userId: string,
  domainRef: string,
): Promise<Standing | null> {
  if (!isUuid(userId)) return null;
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow & CallerRow>(em, standingOfCallerSql(domain.column), [
    domain.value,
    DOMAIN_GUEST_ROLE,
    userId.toLowerCase(),
  ]);
  return found && standingWith(em, found);
}

/**
 * A judger's access key, its user and their standing in a domain, in one prepared statement: a judge
 * sends its key with every call, and the key's own statement was a round trip of each. Null when the
 * key is unknown, its secret does not match, or its user is deactivated (a 401).
 */
export async function loadKeyAndDomainAccess(
  em: EntityManager,
  keyId: string,
  secret: string,
  domainRef: string,
): Promise<Standing | null> {
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow & KeyRow>(em, standingOfKeySql(domain.column), [
    keyStaleness,
    domain.value,
    DOMAIN_GUEST_ROLE,
    keyId,
  ]);
  return found && (await acceptKey(em, found, secret)) ? standingWith(em, found) : null;
}

/** A caller and their standing in the domain of the path, as read by one statement. */
type Standing = { principal: Principal; access: () => DomainAccess };

/** The caller's row beside the standing: as JSON text (for the entity, when asked for), id and site role. */
interface CallerRow {
  u: string;
  u_id: string;
  u_role: string;
}

function standingWith(em: EntityManager, found: StandingRow & CallerRow): Standing {
  const row = once(() => JSON.parse(found.u) as UserRow);
  const principal = principalOfRow(em, found.u_id, found.u_role, row);
  return { principal, access: () => standingOf(em, principal, found) };
}

/** The caller from their row (read when first needed): the entity and the profile are made on first use. */
export function principalOfRow(em: EntityManager, id: string, role: string, row: () => UserRow): Principal {
  return {
    id,
    role: role as SiteRole,
    entity: once(() => em.map(User, row())),
    profile: once(() => userProfileOf(row())),
  };
}

/** How the path names the domain: by id or by url. */
function domainMatch(domainRef: string): { column: DomainKey; value: string } {
  const where = byUrlOrId(domainRef);
  return "id" in where ? { column: DOMAIN_KEY.id, value: where.id } : { column: DOMAIN_KEY.url, value: where.url };
}

interface StandingRow {
  d: string | null;
  d_id: string | null;
  d_hidden: boolean;
  d_owner: string | null;
  m_id: string | null;
  m_created_at: string | null;
  m_updated_at: string | null;
  m_role: string | null;
  /** The role's stored set as JSON text: the key of the kept combinations. */
  r_permission: string | null;
}

function standingOf(em: EntityManager, principal: Principal, found: StandingRow | null): DomainAccess {
  if (!found?.d || !found.d_id) throw new BizError("DomainNotFoundError", "domain not found");
  const { d, d_id, m_id, m_created_at, m_updated_at, m_role } = found;
  const domain = once(() => em.map(Domain, JSON.parse(d)));
  const membership =
    m_id === null
      ? null
      : once(() =>
          em.map(DomainUser, {
            id: m_id,
            created_at: m_created_at,
            updated_at: m_updated_at,
            domain_id: d_id,
            user_id: principal.id,
            role: m_role,
          }),
        );
  const role = m_role ?? DOMAIN_GUEST_ROLE;
  const isOwner = found.d_owner === principal.id;
  return {
    userId: principal.id,
    siteRole: principal.role,
    domainId: d_id,
    domainHidden: found.d_hidden,
    isMember: m_id !== null,
    role,
    isOwner,
    ip: null,
    permissions: keptPermissions(principal.role, isOwner, role, found.r_permission),
    get user() {
      return principal.entity();
    },
    get domain() {
      return domain();
    },
    get membership() {
      return membership === null ? null : membership();
    },
  };
}

export async function accessFor(em: EntityManager, user: User, domain: Domain): Promise<DomainAccess> {
  const membership = await em.findOne(DomainUser, { domain, user });
  const role = membership?.role ?? DOMAIN_GUEST_ROLE;
  const row = role === DOMAIN_ROOT_ROLE ? null : await em.findOne(DomainRole, { domain, role });
  const siteRole = user.role as SiteRole;
  const isOwner = domain.owner?.id === user.id;
  return {
    user,
    domain,
    membership,
    userId: user.id,
    siteRole,
    domainId: domain.id,
    domainHidden: domain.hidden,
    isMember: membership !== null,
    role,
    isOwner,
    ip: null,
    permissions: keptPermissions(siteRole, isOwner, role, row?.permission ?? null),
  };
}

/** Horse's "domain root": the site root, a member with role `root`, or the owner. */
export function isDomainRoot(access: DomainAccess): boolean {
  return isSiteRoot(access.siteRole) || access.isOwner || access.role === DOMAIN_ROOT_ROLE;
}

/**
 * A hidden domain exists only for its members, for holders of site `domain.view_hidden`, and for
 * site judgers (who judge records in every domain and hold nothing else there).
 */
export function canSeeDomain(access: DomainAccess): boolean {
  return (
    !access.domainHidden ||
    access.isMember ||
    siteRoleGrants(access.siteRole, "domain.view_hidden") ||
    isJudger(access.siteRole)
  );
}

export function assertDomainVisible(access: DomainAccess): void {
  if (!canSeeDomain(access)) throw new BizError("DomainNotFoundError", "domain not found");
}

function grants(access: DomainAccess, permission: RoutePermission): boolean {
  if (permission.startsWith("site:")) return siteRoleGrants(access.siteRole, permission.slice(5) as SitePermission);
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
  if (!access.isOwner && !isSiteRoot(access.siteRole)) throw new HttpError(403, "domain delete Permission Denied.");
}

/** Transferring ownership: the owner or the site root (Horse's rule and error). */
export function assertCanTransferDomain(access: DomainAccess): void {
  if (!access.isOwner && !isSiteRoot(access.siteRole)) {
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
  if (targetIsOwner && !access.isOwner && !isSiteRoot(access.siteRole)) {
    throw new BizError("DomainNotOwnerError", "only the owner or a site root can change the owner's membership");
  }
}

/**
 * Anyone logged in may read their own permissions in a domain (the invitation join page does, before
 * joining); reading another member's needs what reading the domain needs.
 */
export function assertMayReadPermissionsOf(access: DomainAccess, userRef: string): void {
  if (userRef === "me" || userRef.toLowerCase() === access.userId) return;
  assertDomainVisible(access);
  assertPermitted(access, "general.view");
}
