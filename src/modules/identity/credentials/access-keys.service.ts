import type { EntityManager } from "@mikro-orm/postgresql";
import { generateAccessKey, secretMatches } from "./access-keys";
import { AccessKey } from "./access-key.entity";
import { User } from "../../users/user.entity";
import { row } from "../../../db/statements";
import { ACCESS_KEY_SQL } from "../identity.sql";

// last_used_at is advisory: writing it on every judger request would cost a row update per call.
const LAST_USED_RESOLUTION_MS = 60_000;

/** Creates a key for the user inside the caller's transaction; the secret is returned once, never stored. */
export async function createAccessKey(em: EntityManager, user: User): Promise<{ keyId: string; secret: string }> {
  const generated = generateAccessKey();
  em.create(AccessKey, { keyId: generated.keyId, secretDigest: generated.secretDigest, user });
  await em.flush();
  return { keyId: generated.keyId, secret: generated.secret };
}

/**
 * The active user owning a key whose secret matches, or null. Judgers send their key on every call,
 * so the key and its user come from one prepared statement (the ORM's findOne with its user cost
 * about 1 ms of CPU); the SHA-256 check itself is microseconds. Nothing is cached: a revoked key or
 * a deactivated judger is refused on its next call. A domain route reads the key together with the
 * caller's standing (access.ts, loadKeyAndDomainAccess), through the same columns (identity.sql.ts,
 * KEY_COLUMNS) and acceptKey.
 */
export async function authenticateAccessKey(em: EntityManager, keyId: string, secret: string): Promise<User | null> {
  const found = await row<KeyRow>(em, ACCESS_KEY_SQL, [keyStaleness, keyId]);
  return found && (await acceptKey(em, found, secret)) ? em.map(User, JSON.parse(found.u)) : null;
}

/** A key's row: its user (JSON text, site role, active flag), its id, digest and whether its use is stale. */
export interface KeyRow {
  u: string;
  u_id: string;
  u_role: string;
  u_active: boolean;
  key_id: string;
  secret_digest: string;
  stale: boolean;
}

/** The staleness in seconds, the first parameter of a statement reading a KeyRow (identity.sql.ts). */
export const keyStaleness = LAST_USED_RESOLUTION_MS / 1000;

/** Whether a found key admits the caller (secret matches, user active); notes its use when stale. */
export async function acceptKey(em: EntityManager, found: KeyRow, secret: string): Promise<boolean> {
  if (!secretMatches(secret, found.secret_digest) || !found.u_active) return false;
  if (found.stale) await em.nativeUpdate(AccessKey, { id: found.key_id }, { lastUsedAt: new Date() });
  return true;
}
