import type { DomainAccess } from "../identity/access";
import type { CcsContext } from "./ccs-contest";

/** An object of the contest as a feed sends it, with its data's JSON (what a feed compares to know a change). */
export type Notification = { type: string; id: string | null; data: unknown; record?: string; text: string };

/** One read of a contest as a view sees it: every object keyed `type/id`, and the view's freeze tag. */
export interface FeedRead {
  ctx: CcsContext;
  tag: string;
  all: Map<string, Notification>;
}

interface Shared {
  startedAt: number;
  read: Promise<FeedRead> | null;
  feeds: number;
}

/**
 * The feeds' reads of a contest, shared (bench:streams, docs/benchmarks.md): every feed of a contest hears a
 * change at the same moment, and each reading the whole contest for it was 200 snapshots a burst for 200 feeds,
 * the API's memory growing by a gigabyte. Feeds that would read the same thing (`shareKey`) take one read
 * begun after the change they heard (`since`): what it shows includes that change.
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
  const entry = shared.get(key) ?? { startedAt: 0, read: null, feeds: 0 };
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

/** The newest read of `key` if it began at or after `since`, else a new one (then the one others take). */
export function readShared(key: string, since: number, read: () => Promise<FeedRead>): Promise<FeedRead> {
  const entry = shared.get(key);
  if (!entry) return read();
  if (entry.read && entry.startedAt >= since) return entry.read;
  const startedAt = performance.now();
  const fresh = read();
  entry.startedAt = startedAt;
  entry.read = fresh;
  // A failed read is not kept: the next burst reads again.
  fresh.catch(() => {
    if (entry.read === fresh) entry.read = null;
  });
  return fresh;
}
