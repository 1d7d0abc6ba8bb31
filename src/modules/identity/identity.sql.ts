/**
 * The identity wing's hand-written SQL: access keys, the caller's standing in a domain, and the lock
 * that serialises registrations. The code that runs each statement stays in its own module and imports
 * the text from here; tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS
 * against the migrated schema.
 */

/** Serialises registrations, so that exactly one first user becomes root however many arrive at once. */
export const FIRST_USER_LOCK_SQL = "select pg_advisory_xact_lock(?)";

/** The columns of a KeyRow from KEY_FROM; its one placeholder is the staleness in seconds (keyStaleness). */
export const KEY_COLUMNS = `to_json(u)::text as u, u.id as u_id, u.role as u_role, u.is_active as u_active,
  k.id as key_id, k.secret_digest,
  k.last_used_at is null or k.last_used_at < now() - make_interval(secs => ?) as stale`;
export const KEY_FROM = "access_keys k join users u on u.id = k.user_id";

/** A key and its user by the key's id. Parameters: staleness in seconds, key id. */
export const ACCESS_KEY_SQL = `select ${KEY_COLUMNS} from ${KEY_FROM} where k.key_id = ?`;

/** How the path names the domain: the column its id or url is matched on. */
export const DOMAIN_KEY = { id: "d.id", url: "d.url" } as const;
export type DomainKey = (typeof DOMAIN_KEY)[keyof typeof DOMAIN_KEY];

// The user row is always there (the caller); the domain, membership and role rows may not be. The user
// and domain rows come as JSON text, parsed only when a service asks for the entity.
const standingSql = (domainKey: DomainKey, where: string, user = "", from = "users u") =>
  `select ${user} to_json(d)::text as d, d.id as d_id, d.hidden as d_hidden, d.owner_id as d_owner,
          m.id as m_id, m.created_at as m_created_at, m.updated_at as m_updated_at, m.role as m_role,
          r.permission::text as r_permission
     from ${from}
     left join domains d on ${domainKey} = ?
     left join domain_users m on m.domain_id = d.id and m.user_id = u.id
     left join domain_roles r on r.domain_id = d.id and r.role = coalesce(m.role, ?)
    ${where}`;

/** A user's standing in a domain. Parameters: the domain's id or url, the guest role, the user's id. */
export const standingOfUserSql = (domainKey: DomainKey) => standingSql(domainKey, "where u.id = ?");

/**
 * The caller (an active user, by id) with their standing in a domain. Parameters: the domain's id or url,
 * the guest role, the user's id.
 */
export const standingOfCallerSql = (domainKey: DomainKey) =>
  standingSql(domainKey, "where u.id = ? and u.is_active", "to_json(u)::text as u, u.id as u_id, u.role as u_role,");

/**
 * An access key, its user and their standing in a domain. Parameters: staleness in seconds, the domain's
 * id or url, the guest role, the key's id.
 */
export const standingOfKeySql = (domainKey: DomainKey) =>
  standingSql(domainKey, "where k.key_id = ?", `${KEY_COLUMNS},`, KEY_FROM);

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  FIRST_USER_LOCK_SQL,
  ACCESS_KEY_SQL,
  ...Object.values(DOMAIN_KEY).flatMap((key) => [
    standingOfUserSql(key),
    standingOfCallerSql(key),
    standingOfKeySql(key),
  ]),
];
