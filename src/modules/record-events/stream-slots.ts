import type Redis from "ioredis";

/**
 * The live streams' slots shared by every API process: a user's and the site's, each a Redis sorted set of
 * stream ids scored by their last heartbeat (Redis's own clock, so processes' clocks need not agree). The
 * slots of a process that died free themselves once `staleMs` old; a live stream's heartbeat renews its own.
 * Both are taken in one script: two streams opening at once cannot both take the last slot, and a stream
 * refused by the site's cap holds no slot of its user's.
 */
const TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local stale = tonumber(ARGV[1])
for i = 1, 2 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - stale) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 2 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[i], stale)
end
return 0`;

/** Added again if a stall let a sweep take it: a live stream always holds its slots. */
const KEEP = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
end
return 0`;

/** Which cap refused a stream, or null when it holds its slots. */
export type Refusal = "user" | "site" | null;

export class StreamSlots {
  constructor(
    /** A connection for commands: the queues' own. */
    private readonly commands: () => Promise<Redis>,
    private readonly queuePrefix: string,
    private readonly staleMs: number,
  ) {}

  private keys(userId: string): [string, string] {
    return [`${this.queuePrefix}:records:streams:${userId}`, `${this.queuePrefix}:records:site-streams`];
  }

  async take(userId: string, streamId: string, maxPerUser: number, maxPerSite: number): Promise<Refusal> {
    const redis = await this.commands();
    const refused = await redis.eval(TAKE, 2, ...this.keys(userId), this.staleMs, maxPerUser, maxPerSite, streamId);
    return refused === 1 ? "user" : refused === 2 ? "site" : null;
  }

  async keep(userId: string, streamId: string): Promise<void> {
    await (await this.commands()).eval(KEEP, 2, ...this.keys(userId), this.staleMs, streamId);
  }

  async free(userId: string, streamId: string): Promise<void> {
    const [user, site] = this.keys(userId);
    await (await this.commands()).multi().zrem(user, streamId).zrem(site, streamId).exec();
  }
}
