import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { byUrlOrId, isUuid } from "../../db/addressing";
import { User } from "../users/user.entity";
import { userProfileOf, type UserProfile, type UserRow } from "../users/users.service";
import { readRow } from "../../db/statements";
import { once } from "../../runtime/once";
import { acceptKey, keyStaleness, type KeyRow } from "./credentials/access-keys.service";
import {
  DOMAIN_KEY,
  type DomainKey,
  type ResourceRow,
  standingOfCallerSql,
  standingOfKeySql,
  standingOfUserSql,
  statementOf,
  type StandingRead,
} from "./identity.sql";
import { Domain } from "../domains/domain.entity";
import { DomainUser } from "../domains/domain-user.entity";
import { DomainRole } from "../domains/domain-role.entity";
import {
  DOMAIN_GUEST_ROLE,
  DOMAIN_ROOT_ROLE,
  keptPermissions,
  type DomainPermissionSet,
  type SiteRole,
} from "./permissions";

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
  return (await loadDomainAccessWith(em, user, domainRef)).access;
}

/** loadDomainAccess, and a resource read in the same statement (`read`): its row, or null without one. */
export async function loadDomainAccessWith(
  em: EntityManager,
  user: User,
  domainRef: string,
  read?: StandingRead,
): Promise<{ access: DomainAccess; resource: ResourceRow | null }> {
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow & ResourceRow>(em, statementOf(standingOfUserSql, domain.column, read), [
    domain.value,
    DOMAIN_GUEST_ROLE,
    ...(read?.values ?? []),
    user.id,
  ]);
  return { access: standingOf(em, principalOf(user), found), resource: read ? found : null };
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
  read?: StandingRead,
): Promise<Standing | null> {
  if (!isUuid(userId)) return null;
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow & CallerRow & ResourceRow>(
    em,
    statementOf(standingOfCallerSql, domain.column, read),
    [domain.value, DOMAIN_GUEST_ROLE, ...(read?.values ?? []), userId.toLowerCase()],
  );
  return found && standingWith(em, found, read);
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
  read?: StandingRead,
): Promise<Standing | null> {
  const domain = domainMatch(domainRef);
  const found = await readRow<StandingRow & KeyRow & ResourceRow>(
    em,
    statementOf(standingOfKeySql, domain.column, read),
    [keyStaleness, domain.value, DOMAIN_GUEST_ROLE, ...(read?.values ?? []), keyId],
  );
  return found && (await acceptKey(em, found, secret)) ? standingWith(em, found, read) : null;
}

/** A route that reads its resource with the standing asked for an entity that standing does not hold. */
function notRead(row: "caller" | "domain"): never {
  throw new Error(`the ${row}'s row is not read with a route's resource (domainRead): read it in the service`);
}

/** A caller and their standing in the domain of the path, and the resource read with them (if any). */
type Standing = { principal: Principal; access: () => DomainAccess; resource: ResourceRow | null };

/** The caller's row beside the standing: as JSON text (for the entity, when asked for), id and site role. */
interface CallerRow {
  /** Absent when read with a route's resource (identity.sql.ts). */
  u?: string;
  u_id: string;
  u_role: string;
}

function standingWith(em: EntityManager, found: StandingRow & CallerRow & ResourceRow, read?: StandingRead): Standing {
  const row = once(() => JSON.parse(found.u ?? notRead("caller")) as UserRow);
  const principal = principalOfRow(em, found.u_id, found.u_role, row);
  return { principal, access: () => standingOf(em, principal, found), resource: read ? found : null };
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
  /** Absent when read with a route's resource (identity.sql.ts); null when there is no such domain. */
  d?: string | null;
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
  if (!found?.d_id) throw new BizError("DomainNotFoundError", "domain not found");
  const { d, d_id, m_id, m_created_at, m_updated_at, m_role } = found;
  const domain = once(() => em.map(Domain, JSON.parse(d ?? notRead("domain"))));
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
