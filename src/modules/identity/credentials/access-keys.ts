import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Machine credentials for judgers: `accessKeyId` (public, `jk_…`) and `secretAccessKey` (256 random
 * bits, shown once). Used as HTTP Basic credentials (`Authorization: Basic base64(id:secret)`).
 */
export interface GeneratedAccessKey {
  keyId: string;
  secret: string;
  secretDigest: string;
}

export function generateAccessKey(): GeneratedAccessKey {
  const keyId = `jk_${randomBytes(10).toString("hex")}`;
  const secret = randomBytes(32).toString("base64url");
  return { keyId, secret, secretDigest: digestSecret(secret) };
}

export function digestSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function secretMatches(secret: string, digest: string): boolean {
  const given = Buffer.from(digestSecret(secret), "hex");
  const stored = Buffer.from(digest, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** Parses `Basic base64(id:secret)`; null when the header is not a well-formed access-key credential. */
export function parseBasicCredential(header: string): { keyId: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return null;
  const keyId = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  return /^jk_[0-9a-f]{20}$/.test(keyId) && secret.length > 0 ? { keyId, secret } : null;
}
