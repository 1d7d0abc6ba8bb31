import type { EntityManager } from "@mikro-orm/postgresql";
import { generateAccessKey, secretMatches } from "../../auth/access-keys";
import { AccessKey } from "./access-key.entity";
import type { User } from "../users/user.entity";

// last_used_at is advisory: writing it on every judger request would cost a row update per call.
const LAST_USED_RESOLUTION_MS = 60_000;

/** Creates a key for the user inside the caller's transaction; the secret is returned once, never stored. */
export async function createAccessKey(em: EntityManager, user: User): Promise<{ keyId: string; secret: string }> {
  const generated = generateAccessKey();
  em.create(AccessKey, { keyId: generated.keyId, secretDigest: generated.secretDigest, user });
  await em.flush();
  return { keyId: generated.keyId, secret: generated.secret };
}

/** The active user owning a key whose secret matches, or null. */
export async function authenticateAccessKey(em: EntityManager, keyId: string, secret: string): Promise<User | null> {
  const key = await em.findOne(AccessKey, { keyId }, { populate: ["user"] });
  if (!key || !secretMatches(secret, key.secretDigest)) return null;
  const user = key.user as unknown as User;
  if (!user.isActive) return null;
  const now = Date.now();
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await em.nativeUpdate(AccessKey, { id: key.id }, { lastUsedAt: new Date(now) });
  }
  return user;
}
