/**
 * How the judge's calls survive an API that does not answer (judge-api.ts): the API's addresses tried in
 * turn, then again with back-off, for a bounded time.
 */

/** The API said no (the task was re-queued, the lease lapsed, another judger has it): not worth a retry. */
export class Refused extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(`${errorCode}: ${message}`);
    this.name = "Refused";
  }
}

/** A failure of transport (a 5xx, say) that another attempt, or another address, may not meet. */
export class Transient extends Error {}

/**
 * How long a call is retried while the API does not answer (refused connections, timeouts, 5xx): an API
 * restarting during a deadline comes back within seconds. Past this the call throws Unreachable, and the
 * judge gives up the record without reporting anything (judge-record.ts): its lease returns it to the queue.
 */
export const RETRY_WINDOW_MS = 30_000;
const BACKOFF_MS = 250;
const BACKOFF_MAX_MS = 4_000;

/** The API did not answer within the retry window: a matter of transport, never of the record. */
export class Unreachable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "Unreachable";
  }
}

/** Whether an error, or one that caused it, is Unreachable. */
export function isUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof Unreachable) return true;
  return false;
}

/**
 * The API's addresses (JUDGE_SERVER_URL, a list): every call goes to the one that answered last, and moves
 * to the next when it does not. Leases and tasks live in PostgreSQL, so a record claimed through one API
 * is reported through any other; an API restarting costs a call one failed attempt, not the record.
 */
export class Addresses {
  private at = 0;

  constructor(readonly all: readonly string[]) {
    if (all.length === 0) throw new Error("the judge needs at least one API address");
  }

  get current(): string {
    return this.all[this.at];
  }

  /** The address failed: the next one is tried from now on (unless another call moved on already). */
  failed(address: string): void {
    if (this.all[this.at] === address) this.at = (this.at + 1) % this.all.length;
  }
}

/**
 * A refusal at once; a transport failure at the next address at once, and once every address failed, again
 * after a back-off, until the retry window ends (Unreachable).
 */
export async function withRetries<T>(
  addresses: Addresses,
  windowMs: number,
  attempt: (base: string) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const deadline = Date.now() + windowMs;
  for (let round = 0; ; round++) {
    let last: unknown;
    for (let tried = 0; tried < addresses.all.length; tried++) {
      const base = addresses.current;
      try {
        return await attempt(base);
      } catch (error) {
        if (error instanceof Refused || signal?.aborted) throw error;
        last = error;
        addresses.failed(base);
      }
    }
    const pause = Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** round);
    if (Date.now() + pause > deadline)
      throw new Unreachable(`the API did not answer for ${windowMs / 1000} s: ${String(last)}`, { cause: last });
    await Bun.sleep(pause);
  }
}
