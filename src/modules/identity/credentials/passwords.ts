/** Password hashing: argon2id through Bun.password. The seed puts no rule on content; length is capped. */
import { ServiceError } from "../../../core/errors";
import { FairGate, GateBusy } from "../../../runtime/fair-gate";

export const MAX_PASSWORD_LENGTH = 1024;

/**
 * At most PASSWORD_HASH_CONCURRENCY hashes at once (argon2id takes 64 MiB and a core each), shared
 * fairly (fair-gate.ts): accounts take turns, and inside an account its addresses take turns, so a flood
 * of logins waits behind itself and not in front of another user's. A hash that would wait longer
 * than PASSWORD_HASH_MAX_WAIT_MS is refused at once (GateBusy, a 429 with Retry-After).
 */
const gate = new FairGate(navigator.hardwareConcurrency || 1, 3_000);

export function setPasswordHashing(settings: { concurrency: number; maxWaitMs: number }): void {
  gate.setSlots(settings.concurrency);
  gate.setMaxWait(settings.maxWaitMs);
}

/** Whose turn a hash is: a group (an account, or a registration's address) and a member (an address). */
export interface HashClient {
  group: string;
  member: string;
}

const ANYONE: HashClient = { group: "", member: "" };

async function inTurn<T>(client: HashClient, work: () => Promise<T>): Promise<T> {
  try {
    return await gate.run(client.group, client.member, work);
  } catch (error) {
    if (error instanceof GateBusy) {
      throw new ServiceError(
        429,
        `too many password checks waiting: try again in ${error.retryAfterSeconds} s`,
        error.retryAfterSeconds,
      );
    }
    throw error;
  }
}

export function hashPassword(password: string, client: HashClient = ANYONE): Promise<string> {
  return inTurn(client, () => Bun.password.hash(password, { algorithm: "argon2id" }));
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password; an account without a password never matches. When there is no account at all,
 * a dummy hash is verified so that "no such user" takes as long as "wrong password" (no enumeration).
 */
export async function verifyPassword(
  password: string,
  hash: string | null,
  client: HashClient = ANYONE,
): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= Bun.password.hash("timing-equaliser", { algorithm: "argon2id" });
    const dummy = await dummyHash;
    await inTurn(client, () => Bun.password.verify(password, dummy));
    return false;
  }
  if (hash === "" || password === "") return false;
  try {
    return await inTurn(client, () => Bun.password.verify(password, hash));
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    return false;
  }
}
