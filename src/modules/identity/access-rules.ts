import { BizError, HttpError, permissionDenied } from "../../core/errors";
import type { DomainAccess } from "./access";
import {
  DOMAIN_ROOT_ROLE,
  hasDomainPermission,
  isJudger,
  isSiteRoot,
  permissionWords,
  siteRoleGrants,
  type DomainPermission,
  type SitePermission,
} from "./permissions";

/**
 * The rules a caller's standing (access.ts) is checked against: a route's declared permissions
 * (assertPermitted, called by the auth plugin alone), what a route shows (holds), and Horse's own
 * rules for domain roots, owners and hidden domains.
 */

/** What a route may require: a domain permission, or a site permission written `site:<scope>.<flag>`. */
export type RoutePermission = DomainPermission | `site:${SitePermission}`;
/** One permission, all of a list, or any of a set. */
export type PermissionRule = RoutePermission | RoutePermission[] | { anyOf: RoutePermission[] };

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
