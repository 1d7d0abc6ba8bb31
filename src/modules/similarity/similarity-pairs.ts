import type { Fingerprints } from "./similarity-fingerprints";

/**
 * Pairs scored from an inverted index (fingerprint → the sources holding it and how often), so a report
 * never holds its N² pairs: each source's row is added up in one array of N counts, and only the best
 * `most` pairs are kept while the rows go by. The score is Dolos's Pair.similarity: the occurrences of
 * the fingerprints both hold, in both, over both sources' fingerprints less the starter code's (counted,
 * as Dolos counts them, twice from the left source's).
 */

export interface Candidate {
  left: number;
  right: number;
  similarity: number;
}

/** A source's distinct fingerprints (by the index's numbering) and how often each occurs in it. */
interface Distinct {
  ids: Int32Array;
  counts: Int32Array;
}

/** Each distinct hash of the sources numbered, starter code's left out; each source's distinct ones. */
function distinctOf(sources: Fingerprints[], ignored: Set<number>) {
  const idOf = new Map<number, number>();
  const ignoredCounts = new Int32Array(sources.length);
  const distinct: Distinct[] = sources.map((source, s) => {
    const sorted = source.hashes.slice().sort();
    const ids: number[] = [];
    const counts: number[] = [];
    for (let i = 0, end = 0; i < sorted.length; i = end) {
      const hash = sorted[i];
      while (end < sorted.length && sorted[end] === hash) end++;
      if (ignored.has(hash)) {
        ignoredCounts[s]++;
        continue;
      }
      let id = idOf.get(hash);
      if (id === undefined) {
        id = idOf.size;
        idOf.set(hash, id);
      }
      ids.push(id);
      counts.push(end - i);
    }
    return { ids: Int32Array.from(ids), counts: Int32Array.from(counts) };
  });
  return { distinct, ignoredCounts, fingerprintCount: idOf.size };
}

/**
 * The `most` most similar pairs of the sources (at least `minSimilarity`), highest first. Pairs that share
 * nothing score 0 and are kept too when `minSimilarity` is 0 and there is room, as before.
 */
export async function bestPairs(
  sources: Fingerprints[],
  ignored: Set<number>,
  options: { minSimilarity: number; most: number; pause: () => Promise<void> },
): Promise<Candidate[]> {
  const { distinct, ignoredCounts, fingerprintCount } = distinctOf(sources, ignored);
  // The index, compressed: the postings of fingerprint f are at [starts[f], starts[f + 1]), by source.
  const starts = new Int32Array(fingerprintCount + 1);
  for (const { ids } of distinct) for (const id of ids) starts[id + 1]++;
  for (let f = 0; f < fingerprintCount; f++) starts[f + 1] += starts[f];
  const holders = new Int32Array(starts[fingerprintCount]);
  const holderCounts = new Int32Array(starts[fingerprintCount]);
  const next = starts.slice(0, fingerprintCount);
  distinct.forEach(({ ids, counts }, s) => {
    for (let i = 0; i < ids.length; i++) {
      holders[next[ids[i]]] = s;
      holderCounts[next[ids[i]]++] = counts[i];
    }
  });
  const covered = new Int32Array(sources.length);
  let kept: Candidate[] = [];
  // The lowest score still kept once `kept` has been trimmed: lower pairs are not even made.
  let floor = options.minSimilarity;
  for (let left = 0; left < sources.length; left++) {
    const { ids, counts } = distinct[left];
    for (let i = 0; i < ids.length; i++) {
      // Holders are in source order: walk back from the last down to this row's source.
      for (let p = starts[ids[i] + 1] - 1; p >= starts[ids[i]] && holders[p] > left; p--)
        covered[holders[p]] += counts[i] + holderCounts[p];
    }
    const base = sources[left].hashes.length - 2 * ignoredCounts[left];
    for (let right = left + 1; right < sources.length; right++) {
      const denominator = base + sources[right].hashes.length;
      const similarity = denominator > 0 ? covered[right] / denominator : 0;
      covered[right] = 0;
      if (similarity >= floor) kept.push({ left, right, similarity });
    }
    if (kept.length > options.most * 4) {
      kept = trimmed(kept, options.most * 2);
      floor = Math.max(floor, kept[kept.length - 1].similarity);
    }
    await options.pause();
  }
  return trimmed(kept, options.most);
}

function trimmed(candidates: Candidate[], most: number): Candidate[] {
  candidates.sort((x, y) => y.similarity - x.similarity);
  return candidates.slice(0, most);
}
