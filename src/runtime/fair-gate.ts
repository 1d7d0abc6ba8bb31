/**
 * A bounded, fair line for costly work (password hashes: 64 MiB and a core each). At most `slots` run
 * at once; the rest wait, served round-robin between groups (an account) and, inside a group, between
 * members (the addresses it is used from). So a flood waits behind itself, from one address or many,
 * and inside an account under attack the owner's address still gets its turn. A request whose wait
 * would pass `maxWaitMs` (estimated from the recent run time) is refused at once with that wait.
 */
export class GateBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many requests waiting: try again in ${retryAfterSeconds} s`);
    this.name = "GateBusy";
  }
}

type Waiter = () => void;

/** Weight of the newest run in the running average of run times. */
const AVERAGE_WEIGHT = 0.2;

/** Queues served in turn, by insertion order; a served key goes to the back. */
class Rotation<T> {
  readonly queues = new Map<string, T[]>();

  push(key: string, item: T): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(item);
    else this.queues.set(key, [item]);
  }

  /** The next key's first item; the key goes to the back of the rotation while it has more. */
  shift(): T | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [key, queue] = next.value;
    const item = queue.shift();
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    return item;
  }
}

export class FairGate {
  private running = 0;
  /** Per group, its members' lines; both levels served in turn. */
  private readonly groups = new Map<string, Rotation<Waiter>>();
  private averageMs: number;

  constructor(
    private slots: number,
    private maxWaitMs: number,
    initialRunMs = 250,
  ) {
    this.averageMs = initialRunMs;
  }

  setSlots(slots: number): void {
    this.slots = Math.max(1, slots);
  }

  setMaxWait(maxWaitMs: number): void {
    this.maxWaitMs = maxWaitMs;
  }

  /** Waiting requests, all groups together. */
  get waiting(): number {
    let count = 0;
    for (const group of this.groups.values()) for (const line of group.queues.values()) count += line.length;
    return count;
  }

  async run<T>(group: string, member: string, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots || this.groups.size > 0) await this.enqueue(group, member);
    else this.running++;
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.averageMs += AVERAGE_WEIGHT * (performance.now() - started - this.averageMs);
      this.release();
    }
  }

  private waitingIn(group: string): number {
    let count = 0;
    for (const line of this.groups.get(group)?.queues.values() ?? []) count += line.length;
    return count;
  }

  /** Served in turn, the p-th waiting request of a group has ahead of it every other group's first p + 1. */
  private estimateWaitMs(group: string): number {
    const position = this.waitingIn(group);
    let ahead = this.running - this.slots + 1 + position;
    for (const other of this.groups.keys()) if (other !== group) ahead += Math.min(this.waitingIn(other), position + 1);
    return (Math.max(0, ahead) / this.slots) * this.averageMs;
  }

  private enqueue(group: string, member: string): Promise<void> {
    const waitMs = this.estimateWaitMs(group);
    if (waitMs > this.maxWaitMs) throw new GateBusy(Math.max(1, Math.ceil(waitMs / 1000)));
    return new Promise<void>((resolve) => {
      const members = this.groups.get(group) ?? new Rotation<Waiter>();
      this.groups.set(group, members);
      members.push(member, resolve);
    });
  }

  /** Hands the freed slot to the next group in turn, and inside it to the next member in turn. */
  private release(): void {
    const group = this.nextGroup();
    if (group === undefined) {
      this.running--;
      return;
    }
    const members = this.groups.get(group)!;
    const waiter = members.shift()!;
    if (members.queues.size === 0) this.groups.delete(group);
    waiter();
  }

  /** Groups take turns in the order they first waited; one with more waiting goes to the back. */
  private nextGroup(): string | undefined {
    const next = this.groups.keys().next();
    if (next.done) return undefined;
    const group = next.value;
    const members = this.groups.get(group)!;
    this.groups.delete(group);
    this.groups.set(group, members);
    return group;
  }
}
