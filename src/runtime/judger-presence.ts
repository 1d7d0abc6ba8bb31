import type Redis from "ioredis";

const KEY = "judgers:last-seen";
// Each API process writes a judger's heartbeat at most this often, however busy the judger is.
const WRITE_INTERVAL_MS = 5_000;

/**
 * When each judger was last seen: every authenticated judger request (and, later, every judge worker
 * heartbeat) records the time in one Redis hash, shared by all API replicas.
 */
export class JudgerPresence {
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  markSeen(judgerId: string, now = Date.now()): void {
    const previous = this.lastWrite.get(judgerId) ?? 0;
    if (now - previous < WRITE_INTERVAL_MS) return;
    this.lastWrite.set(judgerId, now);
    // Presence is advisory: a Redis hiccup must not fail the judger's request.
    this.redis.hset(KEY, judgerId, String(now)).catch(this.onError);
  }

  async lastSeen(judgerIds: string[]): Promise<Map<string, Date>> {
    const seen = new Map<string, Date>();
    if (judgerIds.length === 0) return seen;
    const values = await this.redis.hmget(KEY, ...judgerIds);
    judgerIds.forEach((id, i) => {
      const value = values[i];
      if (value) seen.set(id, new Date(Number(value)));
    });
    return seen;
  }
}
