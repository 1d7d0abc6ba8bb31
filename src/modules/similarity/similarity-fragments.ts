import type { Fingerprints } from "./similarity-fingerprints";

/**
 * What a kept pair shows (its fragments, its longest shared run and overlap), made from the two sources'
 * fingerprints alone, only for the pairs a report keeps. The figures are Dolos's Pair's (its overlap, its
 * `longest`, its fragments: the runs of k-grams shared in order by both sources, less those inside another).
 */

export interface PairDetails {
  longestFragment: number;
  overlap: number;
  fragments: { left: [number, number]; right: [number, number] }[];
}

/** Positions of each hash in a source, the starter code's left out. */
function positions(source: Fingerprints, ignored: Set<number>): Map<number, number[]> {
  const at = new Map<number, number[]>();
  source.hashes.forEach((hash, i) => {
    if (ignored.has(hash)) return;
    const list = at.get(hash);
    if (list) list.push(i);
    else at.set(hash, [i]);
  });
  return at;
}

/** Positions (in order) of the source's k-grams whose hash the other holds. */
const sharedIn = (source: Fingerprints, other: Map<number, number[]>) =>
  [...source.hashes.keys()].filter((i) => other.has(source.hashes[i]));

/**
 * Dolos's `longest`: a longest common run of the shared k-grams taken in order, consecutive in the
 * shorter list's source and in the longer list.
 */
function longestRun(long: number[], longSource: Fingerprints, shortAt: Map<number, number[]>, size: number) {
  let previous = new Int32Array(size + 1);
  let current = new Int32Array(size + 1);
  let touched: number[] = [];
  let longest = 0;
  for (const i of long) {
    const next: number[] = [];
    for (const s of shortAt.get(longSource.hashes[i]) ?? []) {
      current[s + 1] = previous[s] + 1;
      longest = Math.max(longest, current[s + 1]);
      next.push(s + 1);
    }
    for (const t of touched) previous[t] = 0;
    [previous, current, touched] = [current, previous, next];
  }
  return longest;
}

interface Run {
  leftFrom: number;
  leftTo: number;
  rightFrom: number;
  rightTo: number;
}

/**
 * The runs inside no other run (on both sides). Longest first, so a run meets every run that may hold it
 * before it; those are found among the kept runs over its first k-gram on the left, a handful even where
 * a source repeats itself (one that has 1,700 runs with another had at most 28 over any k-gram).
 */
function outermost(runs: Run[], leftSize: number): Run[] {
  runs.sort((a, b) => b.leftTo - b.leftFrom - (a.leftTo - a.leftFrom));
  const over: Run[][] = Array.from({ length: leftSize }, () => []);
  const kept: Run[] = [];
  for (const run of runs) {
    const inside = over[run.leftFrom].some(
      (k) => k.leftTo >= run.leftTo && k.rightFrom <= run.rightFrom && run.rightTo <= k.rightTo,
    );
    if (inside) continue;
    kept.push(run);
    for (let i = run.leftFrom; i < run.leftTo; i++) over[i].push(run);
  }
  return kept;
}

export function pairDetails(left: Fingerprints, right: Fingerprints, ignored: Set<number>): PairDetails {
  const leftAt = positions(left, ignored);
  const rightAt = positions(right, ignored);
  const leftShared = sharedIn(left, rightAt);
  const rightShared = sharedIn(right, leftAt);
  const longestFragment =
    leftShared.length < rightShared.length
      ? longestRun(rightShared, right, leftAt, left.hashes.length)
      : longestRun(leftShared, left, rightAt, right.hashes.length);
  // Every pairing of a shared k-gram's occurrences, by diagonal: a run along one is a fragment.
  const paired: [number, number][] = [];
  for (const l of leftShared) for (const r of rightAt.get(left.hashes[l])!) paired.push([l, r]);
  paired.sort((a, b) => a[0] - a[1] - (b[0] - b[1]) || a[0] - b[0]);
  const runs: Run[] = [];
  for (const [l, r] of paired) {
    const last = runs[runs.length - 1];
    if (last && last.leftTo === l && last.rightTo === r) {
      last.leftTo++;
      last.rightTo++;
    } else runs.push({ leftFrom: l, leftTo: l + 1, rightFrom: r, rightTo: r + 1 });
  }
  const kept = outermost(runs, left.hashes.length);
  kept.sort((a, b) => a.leftFrom - b.leftFrom || a.leftTo - b.leftTo);
  const lines = (source: Fingerprints, from: number, to: number): [number, number] => {
    let start = source.startRows[from];
    let end = source.endRows[from];
    for (let i = from + 1; i < to; i++) {
      start = Math.min(start, source.startRows[i]);
      end = Math.max(end, source.endRows[i]);
    }
    return [start + 1, end + 1];
  };
  return {
    longestFragment,
    overlap: leftShared.length + rightShared.length,
    fragments: kept
      .map((run) => ({ left: lines(left, run.leftFrom, run.leftTo), right: lines(right, run.rightFrom, run.rightTo) }))
      .sort((a, b) => a.left[0] - b.left[0]),
  };
}
