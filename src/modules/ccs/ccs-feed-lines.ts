import type { FeedRead } from "./ccs-feed-reads";

/**
 * The event feed's NDJSON lines, encoded once per read for every feed that sends them (bench:streams,
 * docs/benchmarks.md): 200 feeds each stringifying and encoding a contest's every line was the API's memory
 * growing by hundreds of MiB. A line's token is its read's (the log position the read began at, and the
 * view's freeze tag), so the bytes of an object in a read are the same for every feed of its share key: each
 * feed enqueues the same Uint8Array. What is cached hangs off the read, and goes with it when no feed holds it.
 */
const encoder = new TextEncoder();

/** How many lines were encoded: tests see that the feeds of a contest share them (ccs-feed-shared.test.ts). */
export const feedLinesEncoded = { count: 0 };

const tokenOf = (read: FeedRead) => `${read.position}~${read.tag}`;

/** Byte for byte `JSON.stringify({type, id, data, token})`, with the data's JSON the read already made. */
function encode(type: string, id: string | null, text: string, token: string): Uint8Array {
  feedLinesEncoded.count++;
  const head = `{"type":${JSON.stringify(type)},"id":${JSON.stringify(id)},"data":`;
  return encoder.encode(`${head}${text},"token":${JSON.stringify(token)}}\n`);
}

/** The line of the read's object `key`. */
export function lineOf(read: FeedRead, key: string): Uint8Array {
  const found = read.lines.get(key);
  if (found) return found;
  const n = read.all.get(key)!;
  const line = encode(n.type, n.id, n.text, tokenOf(read));
  read.lines.set(key, line);
  return line;
}

/** The spec's deletion of an object (`data: null`), with the read's token. */
export const deletionOf = (read: FeedRead, type: string, id: string | null) => encode(type, id, "null", tokenOf(read));

/** Every object of the read, in order: a new feed's first lines. */
export function dumpOf(read: FeedRead): Uint8Array[] {
  read.dump ??= [...read.all.keys()].map((key) => lineOf(read, key));
  return read.dump;
}

/**
 * What a feed that sent `from` sends for `to`: each object whose data changed or is new, then the deletions of
 * those gone (a record deleted with its problem). Computed once per pair, for every feed that sent `from`.
 */
export function changesOf(from: FeedRead, to: FeedRead): Uint8Array[] {
  const cached = to.diffs.get(from);
  if (cached) return cached;
  const lines: Uint8Array[] = [];
  for (const [key, n] of to.all) if (from.all.get(key)?.text !== n.text) lines.push(lineOf(to, key));
  for (const [key, n] of from.all) if (!to.all.has(key)) lines.push(deletionOf(to, n.type, n.id));
  to.diffs.set(from, lines);
  return lines;
}
