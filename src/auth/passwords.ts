/** Password hashing: argon2id through Bun.password. The seed puts no rule on content; length is capped. */

export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password; an account without a password never matches. When there is no account at all,
 * a dummy hash is verified so that "no such user" takes as long as "wrong password" (no enumeration).
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword("timing-equaliser");
    await Bun.password.verify(password, await dummyHash);
    return false;
  }
  if (hash === "" || password === "") return false;
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false;
  }
}
