import type Redis from "ioredis";

/** The records' change log in Redis (record-events.bus.ts): what its stream ids mean and what it lost. */

/**
 * Whether the log lost an entry after `afterId`: its first entry is after the position and something was
 * removed from it. Redis 7 counts what was ever added (`entries-added`): when that is the length, nothing was
 * trimmed, and a position before the first entry lost nothing (a stream that began on an empty log holds
 * "0-0"). Without the count (Redis 6), a first entry after the position is taken as a trim.
 */
export async function trimmedPast(redis: Redis, log: string, afterId: string): Promise<boolean> {
  let info: unknown[];
  try {
    info = (await redis.call("XINFO", "STREAM", log)) as unknown[];
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return false;
    throw error;
  }
  const field = (name: string) => {
    const at = info.indexOf(name);
    return at >= 0 ? info[at + 1] : undefined;
  };
  const added = field("entries-added");
  if (added !== undefined && Number(added) === Number(field("length"))) return false;
  const first = (await redis.xrange(log, "-", "+", "COUNT", 1))[0];
  return first !== undefined && compareIds(first[0], afterId) > 0;
}

/** Redis stream ids (`ms-seq`) in order. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}

const U64_MAX = 2n ** 64n - 1n;
/** A Redis stream id (`ms-seq`, each part an unsigned 64-bit integer). */
export const isStreamId = (text: string) =>
  /^\d{1,20}-\d{1,20}$/.test(text) && text.split("-").every((part) => BigInt(part) <= U64_MAX);
