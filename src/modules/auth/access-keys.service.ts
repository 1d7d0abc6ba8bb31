import type { EntityManager } from "@mikro-orm/postgresql";
import { generateAccessKey, secretMatches } from "../../auth/access-keys";
import { AccessKey } from "./access-key.entity";
import { User } from "../users/user.entity";
import { row } from "../../db/statements";

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
 * a deactivated judger is refused on its next call.
 */
export async function authenticateAccessKey(em: EntityManager, keyId: string, secret: string): Promise<User | null> {
  const found = await row<{ u: Record<string, unknown>; key_id: string; secret_digest: string; stale: boolean }>(em,
    `select to_json(u) as u, k.id as key_id, k.secret_digest,
            k.last_used_at is null or k.last_used_at < now() - make_interval(secs => ?) as stale
       from access_keys k join users u on u.id = k.user_id where k.key_id = ?`, [LAST_USED_RESOLUTION_MS / 1000, keyId]);
  if (!found || !secretMatches(secret, found.secret_digest)) return null;
  const user = em.map(User, found.u);
  if (!user.isActive) return null;
  if (found.stale) await em.nativeUpdate(AccessKey, { id: found.key_id }, { lastUsedAt: new Date() });
  return user;
}
