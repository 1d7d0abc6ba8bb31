import type Redis from "ioredis";

/**
 * Failed invitation codes per user, in a sliding-ish window: after `maxFailures` wrong codes within
 * `windowSeconds`, joining is refused until the window ends, so codes cannot be guessed by brute force.
 * Kept in Redis so every API replica counts together.
 */
export class JoinLimiter {
  constructor(
    private readonly redis: Redis,
    readonly maxFailures = 10,
    readonly windowSeconds = 15 * 60,
  ) {}

  private key(userId: string): string {
    return `join-failures:${userId}`;
  }

  /** Seconds until the user may try again, or 0 when not blocked. */
  async blockedFor(userId: string): Promise<number> {
    const failures = Number((await this.redis.get(this.key(userId))) ?? 0);
    if (failures < this.maxFailures) return 0;
    return Math.max(1, await this.redis.ttl(this.key(userId)));
  }

  async recordFailure(userId: string): Promise<void> {
    const key = this.key(userId);
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.expire(key, this.windowSeconds);
  }
}
