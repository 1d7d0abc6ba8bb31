import type { DomainAccess } from "../identity/access";

/** An object of the contest as a feed sends it: its data's JSON (what a feed compares to know a change). */
export type Notification = { type: string; id: string | null; record?: string; text: string };

/**
 * One read of a contest as a view sees it: every object keyed `type/id`, the view's freeze tag, and the
 * domain's log position read before it (all it shows includes the changes up to there: its lines' token).
 */
export interface FeedRead {
  position: string;
  tag: string;
  setId: string;
  all: Map<string, Notification>;
  /** The lines encoded so far, every object's in order, and the changes from earlier reads (ccs-feed-lines.ts). */
  lines: Map<string, Uint8Array>;
  dump: Uint8Array[] | null;
  diffs: WeakMap<FeedRead, Uint8Array[]>;
}

interface Shared {
  startedAt: number;
  read: Promise<FeedRead> | null;
  /** Whether `read` is still under way. */
  pending: boolean;
  feeds: number;
}

/**
 * The feeds' reads of a contest, shared (bench:streams, docs/benchmarks.md): every feed of a contest hears a
 * change at the same moment, and each reading the whole contest for it was 200 snapshots a burst for 200 feeds,
 * the API's memory growing by a gigabyte. Feeds that would read the same thing (`shareKey`) take one read
 * begun after the change they heard (`since`, the bus's one time for all of them): what it shows includes that
 * change. A feed keeps only the read it sent last, so the reads alive are the few its contest's feeds last sent;
 * they and their encoded lines (ccs-feed-lines.ts) go when no feed holds them, the entry with its last feed.
 */
const shared = new Map<string, Shared>();

/**
 * What makes two feeds' reads equal: the contest, the view, and the permissions and standing a read consults
 * (which problems, whose records, which board). Not the user: no part of a feed's read is the caller's own.
 */
export const shareKeyOf = (setId: string, view: string, access: DomainAccess) =>
  JSON.stringify([setId, view, access.siteRole, access.isOwner, access.isMember, access.permissions]);

/** A feed's share of `key`'s reads, until it calls the returned release. */
export function joinReads(key: string): () => void {
  const entry = shared.get(key) ?? { startedAt: 0, read: null, pending: false, feeds: 0 };
  entry.feeds++;
  shared.set(key, entry);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const now = shared.get(key);
    if (now && --now.feeds === 0) shared.delete(key);
  };
}

/**
 * The newest read of `key` if it began at or after `since` (or, with `underWay`, if it is still under way),
 * else a new one (then the one others take).
 */
export function readShared(
  key: string,
  since: number,
  read: () => Promise<FeedRead>,
  underWay = false,
): Promise<FeedRead> {
  const entry = shared.get(key);
  if (!entry) return read();
  if (entry.read && (entry.startedAt >= since || (underWay && entry.pending))) return entry.read;
  const startedAt = performance.now();
  const fresh = read();
  entry.startedAt = startedAt;
  entry.read = fresh;
  entry.pending = true;
  fresh.then(
    () => {
      if (entry.read === fresh) entry.pending = false;
    },
    // A failed read is not kept: the next burst reads again.
    () => {
      if (entry.read === fresh) [entry.read, entry.pending] = [null, false];
    },
  );
  return fresh;
}
