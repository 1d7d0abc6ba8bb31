import { randomInt } from "node:crypto";

/**
 * `lines-unordered`: the same lines as a multiset, in any order, trailing white space per line and a
 * final line end aside. Each line is hashed (seeded afresh per comparison) into a number that also
 * carries its index; both sides' numbers are sorted natively, walked in step, and lines with equal
 * hashes are then compared byte for byte, so a collision costs time, never a wrong verdict. O(n log n)
 * in the lines, linear in the bytes, no string per line: 3 MB of blank lines or 16 MB of output are
 * fine (a Map or a sort of two million line strings took seconds).
 */

const LF = 0x0a;
const CHUNK = 1 << 20;
const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Trailing spaces, tabs, \v, \f and \r of each line do not count (so CRLF is LF). */
const isTrailing = (b: number) => b === 0x20 || b === 0x09 || b === 0x0b || b === 0x0c || b === 0x0d;

interface Lines {
  bytes: Uint8Array;
  starts: Int32Array | Float64Array;
  ends: Int32Array | Float64Array;
  /** hash × 2^indexBits + index, sorted. */
  keys: Float64Array;
}

function countLines(bytes: Uint8Array, length: number): number {
  let lines = 1;
  for (let at = bytes.indexOf(LF); at >= 0 && at < length; at = bytes.indexOf(LF, at + 1)) lines++;
  return lines;
}

async function indexLines(
  bytes: Uint8Array,
  count: number,
  length: number,
  seed: number,
  indexBits: number,
): Promise<Lines> {
  const big = length >= 2 ** 31;
  const starts = big ? new Float64Array(count) : new Int32Array(count);
  const ends = big ? new Float64Array(count) : new Int32Array(count);
  const keys = new Float64Array(count);
  const hashScale = 2 ** indexBits;
  const hashMask = 2 ** (53 - indexBits);
  let nextYield = CHUNK;
  for (let line = 0, start = 0; line < count; line++) {
    let end = bytes.indexOf(LF, start);
    if (end < 0 || end > length) end = length;
    let last = end;
    while (last > start && isTrailing(bytes[last - 1])) last--;
    // FNV-1a with a random start, then murmur3's finaliser: spreads short lines over all 32 bits.
    let h = seed;
    for (let k = start; k < last; k++) h = Math.imul(h ^ bytes[k], 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h = (h ^ (h >>> 16)) >>> 0;
    starts[line] = start;
    ends[line] = last;
    keys[line] = (h % hashMask) * hashScale + line;
    start = end + 1;
    if (start > nextYield) {
      nextYield = start + CHUNK;
      await tick();
    }
  }
  keys.sort();
  return { bytes, starts, ends, keys };
}

/** Line `x` of `a` and line `y` of `b`, byte for byte. */
function sameLine(a: Lines, x: number, b: Lines, y: number): boolean {
  const length = a.ends[x] - a.starts[x];
  if (length !== b.ends[y] - b.starts[y]) return false;
  for (let k = 0, i = a.starts[x], j = b.starts[y]; k < length; k++)
    if (a.bytes[i + k] !== b.bytes[j + k]) return false;
  return true;
}

/**
 * Positions `from`..`to` of both sorted key lists hold one hash: the same multiset of lines? Almost
 * always one line each, or copies of one line (blank lines); else a collision, sorted as text.
 */
function sameGroup(a: Lines, e: Lines, from: number, to: number, scale: number): boolean {
  const first = e.keys[from] % scale;
  let copies = true;
  for (let m = from; m < to && copies; m++) {
    copies = sameLine(e, e.keys[m] % scale, e, first) && sameLine(a, a.keys[m] % scale, e, first);
  }
  if (copies) return true;
  const texts = (lines: Lines) => {
    const out: string[] = [];
    for (let m = from; m < to; m++) {
      const i = lines.keys[m] % scale;
      const start = lines.bytes.byteOffset + lines.starts[i];
      out.push(Buffer.from(lines.bytes.buffer, start, lines.ends[i] - lines.starts[i]).toString("latin1"));
    }
    return out.sort();
  };
  const [x, y] = [texts(a), texts(e)];
  return x.every((line, i) => line === y[i]);
}

export async function linesMatchUnordered(actual: Uint8Array, expected: Uint8Array): Promise<boolean> {
  // A final line end ends the last line; it does not start an empty one. No bytes: no lines.
  const lengthOf = (bytes: Uint8Array) => bytes.length - (bytes.length > 0 && bytes[bytes.length - 1] === LF ? 1 : 0);
  const count = (bytes: Uint8Array) => (bytes.length === 0 ? 0 : countLines(bytes, lengthOf(bytes)));
  const lines = count(expected);
  if (count(actual) !== lines) return false;
  if (lines === 0) return true;
  const indexBits = Math.max(1, Math.ceil(Math.log2(lines + 1)));
  const seed = randomInt(2 ** 32 - 1);
  const a = await indexLines(actual, lines, lengthOf(actual), seed, indexBits);
  const e = await indexLines(expected, lines, lengthOf(expected), seed, indexBits);
  const scale = 2 ** indexBits;
  const hashOf = (key: number) => Math.floor(key / scale);
  for (let i = 0; i < lines; ) {
    const hash = hashOf(e.keys[i]);
    let j = i;
    while (j < lines && hashOf(e.keys[j]) === hash) j++;
    // The same hashes, as many times: the actual group spans exactly the same positions.
    if (hashOf(a.keys[i]) !== hash || hashOf(a.keys[j - 1]) !== hash) return false;
    if (j < lines && hashOf(a.keys[j]) === hash) return false;
    if (!sameGroup(a, e, i, j, scale)) return false;
    if (i >> 16 !== j >> 16) await tick();
    i = j;
  }
  return true;
}
