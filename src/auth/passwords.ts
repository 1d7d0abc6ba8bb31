/** Password hashing: argon2id through Bun.password. The seed puts no rule on content; length is capped. */

export const MAX_PASSWORD_LENGTH = 1024;

/**
 * At most this many hashes at once (argon2id takes 64 MiB and a core each): a flood of logins waits in
 * line instead of eating the machine's memory and every other request's CPU. Set from
 * PASSWORD_HASH_CONCURRENCY at start-up.
 */
let slots = navigator.hardwareConcurrency || 1;
let running = 0;
const waiting: (() => void)[] = [];

export function setPasswordHashConcurrency(concurrency: number): void {
  slots = Math.max(1, concurrency);
}

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export function hashPassword(password: string): Promise<string> {
  return inTurn(() => Bun.password.hash(password, { algorithm: "argon2id" }));
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password; an account without a password never matches. When there is no account at all,
 * a dummy hash is verified so that "no such user" takes as long as "wrong password" (no enumeration).
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword("timing-equaliser");
    const dummy = await dummyHash;
    await inTurn(() => Bun.password.verify(password, dummy));
    return false;
  }
  if (hash === "" || password === "") return false;
  try {
    return await inTurn(() => Bun.password.verify(password, hash));
  } catch {
    return false;
  }
}
