import { BoundedMap } from "../../runtime/bounded-map";

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
  /** `record.judge` site-wide: take tasks from every domain's queue (`POST /judge/next_task`). */
  record: ["judge"],
} as const;

export type SiteScope = keyof typeof SITE_PERMISSIONS;
export type SitePermission = { [S in SiteScope]: `${S}.${(typeof SITE_PERMISSIONS)[S][number]}` }[SiteScope];

/** Domain permission groups with Horse's flags and their class defaults (the `user` domain role). */
export const DOMAIN_PERMISSION_DEFAULTS = {
  general: { view: true, editPermission: false, viewModBadge: true, edit: false, unlimitedQuota: false },
  problem: { create: false, view: true, viewHidden: false, submit: true, edit: false, viewConfig: false },
  problemSet: {
    create: false,
    view: true,
    viewHidden: false,
    claim: true,
    scoreboard: false,
    manage: false,
    edit: false,
    viewConfig: false,
    /** Extension: answer a set's clarifications and post announcements; a set that does not say takes `edit`. */
    clarify: false,
  },
  /** `similarity` (extension): code-similarity reports; a set that does not say takes its `code` flag. */
  record: { view: false, detail: false, code: false, judge: false, rejudge: false, similarity: false },
} as const;

export type DomainScope = keyof typeof DOMAIN_PERMISSION_DEFAULTS;
export type DomainPermissionSet = {
  -readonly [S in DomainScope]: { -readonly [F in keyof (typeof DOMAIN_PERMISSION_DEFAULTS)[S]]: boolean };
};
export type DomainPermission = {
  [S in DomainScope]: `${S}.${keyof (typeof DOMAIN_PERMISSION_DEFAULTS)[S] & string}`;
}[DomainScope];

export const DOMAIN_SCOPES = Object.keys(DOMAIN_PERMISSION_DEFAULTS) as DomainScope[];

/** Every flag of one permission set set to `value`. */
export function uniformPermissions(value: boolean): DomainPermissionSet {
  return Object.fromEntries(
    DOMAIN_SCOPES.map((scope) => [
      scope,
      Object.fromEntries(Object.keys(DOMAIN_PERMISSION_DEFAULTS[scope]).map((flag) => [flag, value])),
    ]),
  ) as DomainPermissionSet;
}

export function defaultUserPermissions(): DomainPermissionSet {
  return structuredClone(DOMAIN_PERMISSION_DEFAULTS) as unknown as DomainPermissionSet;
}

/** The roles every new domain gets (Horse's defaults). `root` is all-powerful whatever its stored row says. */
export const DEFAULT_DOMAIN_ROLES: Record<"root" | "admin" | "user" | "guest", () => DomainPermissionSet> = {
  root: () => uniformPermissions(true),
  admin: () => uniformPermissions(true),
  user: defaultUserPermissions,
  guest: () => uniformPermissions(false),
};

/** Role names that cannot be created or deleted; `root` cannot be edited either (it is always all-true). */
export const READ_ONLY_DOMAIN_ROLES = ["root", "guest", "judger"] as const;
export const DOMAIN_ROOT_ROLE = "root";
export const DOMAIN_GUEST_ROLE = "guest";

export function isReadOnlyDomainRole(role: string): boolean {
  return (READ_ONLY_DOMAIN_ROLES as readonly string[]).includes(role);
}

/**
 * A stored permission object (either key case, possibly partial or stale) as a complete set: known
 * flags only, missing ones from the class defaults — Horse's parsing rule.
 */
export function normalizePermissionSet(
  stored: unknown,
  fallback: DomainPermissionSet = defaultUserPermissions(),
  /** Whether an unsaid `problemSet.clarify` follows `edit`; a merge into a stored set keeps the stored one. */
  clarifyFollowsEdit = true,
): DomainPermissionSet {
  const source = (stored && typeof stored === "object" ? stored : {}) as Record<string, Record<string, unknown>>;
  const result = structuredClone(fallback);
  for (const scope of DOMAIN_SCOPES) {
    const group = source[scope] ?? source[camelToSnakeKey(scope)];
    if (!group || typeof group !== "object") continue;
    for (const flag of Object.keys(result[scope]) as (keyof DomainPermissionSet[typeof scope])[]) {
      const value =
        (group as Record<string, unknown>)[flag] ?? (group as Record<string, unknown>)[camelToSnakeKey(flag as string)];
      if (typeof value === "boolean") (result[scope] as Record<string, boolean>)[flag as string] = value;
    }
  }
  // Similarity reports show everyone's code: who may read it all (staff, teaching assistants) gets them
  // unless the set says otherwise; sets stored before the flag existed included.
  if (typeof (source.record as Record<string, unknown> | undefined)?.similarity !== "boolean")
    result.record.similarity = result.record.code;
  // Who manages a set answers its questions, in roles stored before the flag existed too.
  if (clarifyFollowsEdit && typeof (source.problemSet as Record<string, unknown> | undefined)?.clarify !== "boolean")
    result.problemSet.clarify = result.problemSet.edit;
  return result;
}

function camelToSnakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function hasDomainPermission(set: DomainPermissionSet, permission: DomainPermission): boolean {
  const [scope, flag] = permission.split(".") as [DomainScope, string];
  return (set[scope] as Record<string, boolean>)[flag] === true;
}

/** Horse's 403 wording uses snake_case: `problem_set view_hidden Permission Denied.` */
export function permissionWords(permission: DomainPermission | SitePermission): [string, string] {
  const [scope, flag] = permission.split(".");
  return [camelToSnakeKey(scope), camelToSnakeKey(flag)];
}

/** Domain-scope flags a site role grants in every domain (Horse's site defaults). */
function siteDomainGrants(role: SiteRole): DomainPermissionSet {
  if (role === "root") return uniformPermissions(true);
  if (role === "admin") return defaultUserPermissions();
  const none = uniformPermissions(false);
  if (role === "judger") none.record.judge = true;
  return none;
}

/**
 * The caller's effective permissions in a domain, in Horse's check order: site root → domain root
 * (role `root` or the owner) → the site role's grants OR the domain role's set. A non-member holds
 * the domain's `guest` role.
 */
export function effectiveDomainPermissions(input: {
  siteRole: SiteRole;
  isOwner: boolean;
  domainRole: string;
  rolePermissions: DomainPermissionSet;
}): DomainPermissionSet {
  if (input.siteRole === "root" || input.isOwner || input.domainRole === DOMAIN_ROOT_ROLE)
    return uniformPermissions(true);
  const site = siteDomainGrants(input.siteRole);
  const merged = structuredClone(input.rolePermissions);
  for (const scope of DOMAIN_SCOPES) {
    for (const [flag, granted] of Object.entries(site[scope])) {
      if (granted) (merged[scope] as Record<string, boolean>)[flag] = true;
    }
  }
  return merged;
}

/**
 * The effective permissions (effectiveDomainPermissions) of a site role, ownership and domain role, from
 * the role's stored set (JSON text or object; null: the role has no row). The same few combinations come
 * with every request, so results are kept by their inputs, frozen and shared: never mutate one.
 */
export function keptPermissions(
  siteRole: SiteRole,
  isOwner: boolean,
  role: string,
  stored: unknown,
): DomainPermissionSet {
  const text = stored === null || typeof stored === "string" ? stored : JSON.stringify(stored);
  const key = `${siteRole}\u0000${isOwner}\u0000${role}\u0000${text ?? ""}`;
  const known = combinations.get(key);
  if (known) return known;
  const rolePermissions =
    role === DOMAIN_ROOT_ROLE
      ? uniformPermissions(true)
      : text !== null
        ? normalizePermissionSet(JSON.parse(text), uniformPermissions(false))
        : (DEFAULT_DOMAIN_ROLES[role as keyof typeof DEFAULT_DOMAIN_ROLES]?.() ?? uniformPermissions(false));
  const permissions = deepFreeze(effectiveDomainPermissions({ siteRole, isOwner, domainRole: role, rolePermissions }));
  combinations.set(key, permissions);
  return permissions;
}

const combinations = new BoundedMap<string, DomainPermissionSet>(1000);

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === "object") deepFreeze(inner);
  return Object.freeze(value);
}

/** The flags `wanted` grants that `held` does not: a non-root editor may not hand out more than it has. */
export function permissionsBeyond(wanted: DomainPermissionSet, held: DomainPermissionSet): DomainPermission[] {
  const beyond: DomainPermission[] = [];
  for (const scope of DOMAIN_SCOPES) {
    for (const [flag, granted] of Object.entries(wanted[scope])) {
      if (granted && !(held[scope] as Record<string, boolean>)[flag])
        beyond.push(`${scope}.${flag}` as DomainPermission);
    }
  }
  return beyond;
}

/** What site staff may do; root passes every check before the table is read, and is listed for audits. */
const SITE_STAFF: readonly SitePermission[] = [
  "user.view",
  "user.view_hidden",
  "user.view_list",
  "domain.create",
  "domain.edit",
  "domain.delete",
  "domain.view_hidden",
];

const SITE_GRANTS: Record<SiteRole, readonly SitePermission[]> = {
  root: SITE_STAFF,
  admin: SITE_STAFF,
  user: ["user.view"],
  judger: ["record.judge"],
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
