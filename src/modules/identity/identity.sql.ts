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
// and domain rows come as JSON text, parsed only when a service asks for the entity. A route's resource
// may come in the same statement (`lateral`, see StandingRead in access.ts): its columns join the row,
// nulls when it is missing, and its parameters come before the last one. Such a route (a hot read) gets
// no domain or caller row: writing them as JSON was a tenth of the statement's cost, for entities those
// routes never ask for (access.ts says so if one does).
const standingSql = (domainKey: DomainKey, where: string, user = "", from = "users u", lateral = "") =>
  `select ${user} ${lateral ? "" : "to_json(d)::text as d,"} d.id as d_id, d.hidden as d_hidden, d.owner_id as d_owner,
          m.id as m_id, m.created_at as m_created_at, m.updated_at as m_updated_at, m.role as m_role,
          r.permission::text as r_permission${lateral && ", x.*"}
     from ${from}
     left join domains d on ${domainKey} = ?
     left join domain_users m on m.domain_id = d.id and m.user_id = u.id
     left join domain_roles r on r.domain_id = d.id and r.role = coalesce(m.role, ?)${
       lateral && `\n     left join lateral (${lateral}) x on true`
     }
    ${where}`;

/**
 * A user's standing in a domain (and a resource: `lateral`). Parameters: the domain's id or url, the guest
 * role, the resource's, the user's id.
 */
export const standingOfUserSql = (domainKey: DomainKey, lateral = "") =>
  standingSql(domainKey, "where u.id = ?", "", "users u", lateral);

/**
 * The caller (an active user, by id) with their standing in a domain (and a resource: `lateral`).
 * Parameters: the domain's id or url, the guest role, the resource's, the user's id.
 */
export const standingOfCallerSql = (domainKey: DomainKey, lateral = "") =>
  standingSql(
    domainKey,
    "where u.id = ? and u.is_active",
    `${lateral ? "" : "to_json(u)::text as u,"} u.id as u_id, u.role as u_role,`,
    "users u",
    lateral,
  );

/**
 * An access key, its user and their standing in a domain (and a resource: `lateral`). Parameters:
 * staleness in seconds, the domain's id or url, the guest role, the resource's, the key's id.
 */
export const standingOfKeySql = (domainKey: DomainKey, lateral = "") =>
  standingSql(domainKey, "where k.key_id = ?", `${KEY_COLUMNS},`, KEY_FROM, lateral);

/**
 * A route's resource read in the statement of the caller's standing, so that the route reads the database
 * once: `lateral` is a sub-select that may name the caller (`u.id`) and the domain of the path (`d.id`),
 * whose columns must not share a name with the standing's (snake_case ones: quote camelCase names), and
 * `values` its parameters. Its row is the standing's, with nulls where the resource is missing. It is read
 * whatever the standing: the rules are applied to the row after, in the order they are without it.
 */
export interface StandingRead {
  lateral: string;
  values: readonly unknown[];
}
export type ResourceRow = Record<string, unknown>;

/**
 * A standing read as a hot read's is, without the caller's and the domain's rows, for a route that reads its
 * resource after the standing (the record list: which records depends on it) and asks for neither entity.
 */
export const LEAN_STANDING: StandingRead = { lateral: "select true as lean", values: [] };

type StandingSql = (key: DomainKey, lateral?: string) => string;
const statements = new Map<string, Map<StandingSql, Map<DomainKey, string>>>();

/** A standing's statement text with a read, made once per (read, kind, key): the route's lateral is a constant. */
export function statementOf(build: StandingSql, key: DomainKey, read?: StandingRead): string {
  const lateral = read?.lateral ?? "";
  const byBuild = statements.get(lateral) ?? new Map<StandingSql, Map<DomainKey, string>>();
  statements.set(lateral, byBuild);
  const byKey = byBuild.get(build) ?? new Map<DomainKey, string>();
  byBuild.set(build, byKey);
  let text = byKey.get(key);
  if (text === undefined) {
    text = build(key, lateral);
    byKey.set(key, text);
  }
  return text;
}

/** The three standings with one resource read, for the prepare test of the module that reads it. */
export const standingSamples = (lateral: string): string[] =>
  Object.values(DOMAIN_KEY).flatMap((key) => [
    standingOfUserSql(key, lateral),
    standingOfCallerSql(key, lateral),
    standingOfKeySql(key, lateral),
  ]);

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  FIRST_USER_LOCK_SQL,
  ACCESS_KEY_SQL,
  ...Object.values(DOMAIN_KEY).flatMap((key) => [
    standingOfUserSql(key),
    standingOfCallerSql(key),
    standingOfKeySql(key),
  ]),
  ...standingSamples(LEAN_STANDING.lateral),
];
