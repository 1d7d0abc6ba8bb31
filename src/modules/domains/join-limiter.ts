import type Redis from "ioredis";

/**
 * Wrong invitation codes per user: after `maxFailures` within `windowSeconds`, joining is refused until
 * the window ends, so codes cannot be guessed by brute force. Each try reserves its place first
 * (atomically, in Redis, shared by every API replica) and a right code gives it back: N tries sent at
 * the same moment meet the limit N tries sent one by one meet.
 */
const RESERVE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2])) end
if count > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return math.max(1, redis.call('TTL', KEYS[1]))
end
return 0
`;

export class JoinLimiter {
  constructor(
    private readonly redis: Redis,
    readonly maxFailures = 10,
    readonly windowSeconds = 15 * 60,
  ) {}

  private key(userId: string): string {
    return `join-failures:${userId}`;
  }

  /** Reserves a try: 0 when allowed, else the seconds until the user may try again. */
  async reserve(userId: string): Promise<number> {
    return Number(await this.redis.eval(RESERVE, 1, this.key(userId), this.maxFailures, this.windowSeconds));
  }

  /** A right code gives its reservation back; a wrong one keeps it. */
  async giveBack(userId: string): Promise<void> {
    await this.redis.decr(this.key(userId));
  }
}
