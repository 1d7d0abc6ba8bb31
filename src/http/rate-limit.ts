import type Redis from "ioredis";
import type { Rate } from "../settings/config";
import type { Logger } from "../core/logger";
import { ServiceError } from "../core/errors";

/**
 * Token buckets in Redis, shared by every API process: a bucket holds `burst` tokens and refills at
 * `perMinute`. `take` spends a token or says how long until one is back; `peek` only looks. The
 * clock is Redis's own (TIME), so API replicas with skewed clocks count alike. When Redis is down the
 * limits are off (logged once per outage) rather than the site: a limit protects, it must not block.
 */
const SCRIPT = `
local burst = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 60000
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms)
local need = math.max(cost, 1)
if tokens < need then
  return {0, math.ceil((need - tokens) / per_ms)}
end
if cost > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - cost), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(burst / per_ms) + 1000)
end
return {1, 0}
`;

export class RateLimiter {
  private down = false;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Spends one token of `key`'s bucket; throws a 429 with Retry-After when there is none. */
  async take(key: string, rate: Rate, what: string): Promise<void> {
    await this.check(key, rate, 1, what);
  }

  /** Throws the same 429 when the bucket is empty, without spending (checked before costly work). */
  async peek(key: string, rate: Rate, what: string): Promise<void> {
    await this.check(key, rate, 0, what);
  }

  private async check(key: string, rate: Rate, cost: number, what: string): Promise<void> {
    if (rate.perMinute <= 0) return;
    let result: [number, number];
    try {
      result = (await this.redis.eval(SCRIPT, 1, `rate:${key}`, rate.burst, rate.perMinute, cost)) as [number, number];
      if (this.down) this.logger.info("rate limits back: Redis answers again");
      this.down = false;
    } catch (error) {
      if (!this.down) this.logger.warn("rate limits off: Redis does not answer", { error: (error as Error).message });
      this.down = true;
      return;
    }
    const [allowed, retryMs] = result;
    if (!allowed)
      throw new ServiceError(429, `too many ${what}: try again in ${Math.ceil(retryMs / 1000)} s`, retryMs / 1000);
  }
}
