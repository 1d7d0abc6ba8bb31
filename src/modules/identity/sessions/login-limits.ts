import type Redis from "ioredis";
import type { RateLimitSettings, Rate } from "../../../settings/config";
import { ServiceError } from "../../../core/errors";
import type { Logger } from "../../../core/logger";

/**
 * The login policy (docs/operations.md "Abuse and outages"), after OWASP's authentication guidance. Every attempt
 * reserves its place in all of its buckets at once, atomically, before the password is hashed; the
 * verdict then keeps or gives back the reservation. So N guesses sent at the same moment meet exactly
 * the limit N guesses sent one by one meet, and a refused guess costs no hash.
 *
 * - per address (all accounts): wrong passwords, against password spraying;
 * - per account and address: wrong passwords, the strict limit;
 * - per account (all addresses): wrong passwords, looser; once spent, an address that has failed for
 *   this account in the last day is refused, while one that has not still gets its try, so failures
 *   elsewhere never lock the owner out, and guessing from many addresses gets one try per address a day;
 * - per account and address: successful logins, generously (a flood of correct logins). Per address
 *   too, so that guesses in flight elsewhere never hold the owner's logins.
 *
 * A reservation is held while its hash runs: at most the strict limit's burst of attempts per account
 * and address are under way at once, right or wrong.
 */
const SCRIPT = `
local function bucket(key, burst, per_minute, now)
  if per_minute <= 0 then return nil end
  local per_ms = per_minute / 60000
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local at = tonumber(state[2]) or now
  return { key = key, burst = burst, per_ms = per_ms,
           tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms) }
end
local function wait(b) return math.ceil((1 - b.tokens) / b.per_ms) end
local function save(b, now)
  redis.call('HSET', b.key, 'tokens', tostring(b.tokens), 'at', tostring(now))
  redis.call('PEXPIRE', b.key, math.ceil(b.burst / b.per_ms) + 1000)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mode = ARGV[1]
local buckets = {}
for i = 1, 4 do buckets[i] = bucket(KEYS[i], tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1]), now) end
if mode == 'reserve' then
  local retry = 0
  local take = { true, true, true, true }
  for i = 1, 4 do
    local b = buckets[i]
    if b and b.tokens < 1 then
      if i == 3 and redis.call('EXISTS', KEYS[5]) == 0 then take[3] = false
      else retry = math.max(retry, wait(b)) end
    end
  end
  if retry > 0 then return { 0, retry } end
  for i = 1, 4 do
    local b = buckets[i]
    if b and take[i] then b.tokens = b.tokens - 1; save(b, now) end
  end
  return { 1, take[3] and 1 or 0 }
end
-- settle: 'right' gives back the failure buckets it took (1, 2 and 3 when it took 3); 'wrong' gives
-- back the login bucket and marks this address as having failed for this account.
local function give(b) if b then b.tokens = math.min(b.burst, b.tokens + 1); save(b, now) end end
if mode == 'right' then
  give(buckets[1]); give(buckets[2]); if ARGV[10] == '1' then give(buckets[3]) end
else
  give(buckets[4]); redis.call('SET', KEYS[5], '1', 'EX', 86400)
end
return { 1, 0 }
`;

export interface LoginTicket {
  /** Keeps or gives back the reservation: call with the password's verdict. */
  settle(right: boolean): Promise<void>;
}

export class LoginLimits {
  private down = false;

  constructor(
    private readonly redis: Redis,
    private readonly rates: RateLimitSettings,
    private readonly logger: Logger,
  ) {}

  /** Reserves an attempt, or throws a 429 with Retry-After naming what was spent. */
  async reserve(account: string, ip: string): Promise<LoginTicket> {
    const { keys, rates } = this.layout(account, ip);
    const args = (mode: string, took = "0") => [mode, ...rates.flatMap((r) => [r.burst, r.perMinute]), took];
    let result: [number, number];
    try {
      result = (await this.redis.eval(SCRIPT, keys.length, ...keys, ...args("reserve"))) as [number, number];
      this.down = false;
    } catch (error) {
      // Redis down: the limits are off, not the logins (as for every limit; logged once per outage).
      if (!this.down) this.logger.warn("login limits off: Redis does not answer", { error: (error as Error).message });
      this.down = true;
      return { settle: async () => {} };
    }
    const [allowed, value] = result;
    if (!allowed)
      throw new ServiceError(429, `too many login attempts: try again in ${Math.ceil(value / 1000)} s`, value / 1000);
    const took = String(value);
    return {
      settle: async (right) => {
        await this.redis
          .eval(SCRIPT, keys.length, ...keys, ...args(right ? "right" : "wrong", took))
          .catch((error) => this.logger.warn("login limits not settled", { error: (error as Error).message }));
      },
    };
  }

  private layout(account: string, ip: string): { keys: string[]; rates: Rate[] } {
    const r = this.rates;
    return {
      keys: [
        `rate:login-ip:${ip}`,
        `rate:login-pair:${account}:${ip}`,
        `rate:login-account:${account}`,
        `rate:logins:${account}:${ip}`,
        `login-failed:${account}:${ip}`,
      ],
      rates: [r.loginFailuresPerIp, r.loginFailuresPerAccountIp, r.loginFailuresPerAccount, r.loginsPerAccount],
    };
  }
}
