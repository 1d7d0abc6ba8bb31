/**
 * The one permission vocabulary (Horse's DefaultRole, ScopeType and PermissionType). Routes declare
 * what they need in these terms; `src/http/auth.plugin.ts` checks it in one place.
 */

export const SITE_ROLES = ["root", "admin", "user", "judger"] as const;
export type SiteRole = (typeof SITE_ROLES)[number];

/** Site-only permission groups (never stored; fixed per site role). */
export const SITE_PERMISSIONS = {
  user: ["view", "view_hidden", "view_list"],
  domain: ["create", "edit", "delete", "view_hidden"],
} as const;

export type SiteScope = keyof typeof SITE_PERMISSIONS;
export type SitePermission = { [S in SiteScope]: `${S}.${(typeof SITE_PERMISSIONS)[S][number]}` }[SiteScope];

/** Domain permission groups with Horse's flags and their class defaults (the `user` domain role). */
export const DOMAIN_PERMISSION_DEFAULTS = {
  general: { view: true, editPermission: false, viewModBadge: true, edit: false, unlimitedQuota: false },
  problem: { create: false, view: true, viewHidden: false, submit: true, edit: false, viewConfig: false },
  problemSet: {
    create: false, view: true, viewHidden: false, claim: true, scoreboard: false, manage: false, edit: false, viewConfig: false,
  },
  record: { view: false, detail: false, code: false, judge: false, rejudge: false },
} as const;

export type DomainScope = keyof typeof DOMAIN_PERMISSION_DEFAULTS;

const SITE_GRANTS: Record<SiteRole, readonly SitePermission[]> = {
  // root passes every check before this table is read; listed in full for audits.
  root: ["user.view", "user.view_hidden", "user.view_list", "domain.create", "domain.edit", "domain.delete", "domain.view_hidden"],
  admin: ["user.view", "user.view_hidden", "user.view_list", "domain.create", "domain.edit", "domain.delete", "domain.view_hidden"],
  user: ["user.view"],
  judger: [],
};

/** Horse's check order for site permissions: site root first, then the role's fixed grants. */
export function siteRoleGrants(role: SiteRole, permission: SitePermission): boolean {
  return role === "root" || SITE_GRANTS[role].includes(permission);
}

export function isSiteRole(value: unknown): value is SiteRole {
  return typeof value === "string" && (SITE_ROLES as readonly string[]).includes(value);
}

/** The admin API and every override belong to the site root alone. */
export function isSiteRoot(role: SiteRole): boolean {
  return role === "root";
}

/** Judger accounts are machines: their requests mark them alive for `GET /admin/judgers`. */
export function isJudger(role: SiteRole): boolean {
  return role === "judger";
}
