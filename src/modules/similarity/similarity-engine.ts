import { extname } from "node:path";
import { fingerprint, KGRAM_LENGTH, type Fingerprints } from "./similarity-fingerprints";
import { pairDetails } from "./similarity-fragments";
import { bestPairs } from "./similarity-pairs";

/**
 * Code similarity the way Dolos measures it (docs/running-a-course.md "Code similarity"): each source is
 * parsed with tree-sitter and turned into its syntax tree's node types in pre-order, each node's children
 * in parentheses, so names, comments, literals and layout do not matter; the token streams are winnowed
 * into fingerprints and each pair scored by the share of both files that their common fingerprints cover,
 * the figures Dolos's Pair gives. Framework-free: the analysis job feeds it sources and stores what it returns.
 */

/** The tree-sitter grammars a submission's files are parsed with, by file extension. */
const GRAMMAR_OF_EXTENSION: Record<string, string> = {
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".py": "python",
  ".java": "java",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".go": "go",
  ".rs": "rust",
  ".kt": "kotlin",
  ".cs": "c_sharp",
};

/** The grammar a file is compared in, or null for a file that is not source code we can parse. */
export const grammarOf = (path: string): string | null => GRAMMAR_OF_EXTENSION[extname(path).toLowerCase()] ?? null;

export interface Source {
  /** The caller's key for it (a record id). */
  key: string;
  text: string;
  grammar: string;
}

/** Lines (1-based, inclusive) of a fragment both files share. */
export interface Fragment {
  left: [number, number];
  right: [number, number];
}

export interface ScoredPair {
  left: string;
  right: string;
  grammar: string;
  /** (covered tokens of both) / (tokens of both), from 0 to 1. */
  similarity: number;
  /** The longest run of shared k-grams. */
  longestFragment: number;
  /** Shared k-grams in all. */
  overlap: number;
  fragments: Fragment[];
}

export interface AnalysisOptions {
  /** Starter code: its fingerprints count for no pair. */
  template?: string;
  /** Pairs below are left out. */
  minSimilarity: number;
  /** The most pairs kept (the highest). */
  maxPairs: number;
  /** Called between steps; the caller yields to its event loop there, and may throw to stop. */
  pause?: () => Promise<void>;
}

/**
 * Every pair of sources in the same grammar, highest similarity first, those under `minSimilarity` and
 * past `maxPairs` left out. Sources that do not parse into any token are left out. Each source is
 * fingerprinted once and only its fingerprints are kept (similarity-fingerprints.ts); the pairs are
 * scored from an index of them (similarity-pairs.ts), and only the pairs kept are given their fragments.
 */
export async function analyse(sources: Source[], options: AnalysisOptions): Promise<ScoredPair[]> {
  const pause = options.pause ?? (async () => {});
  const byGrammar = new Map<string, Source[]>();
  for (const source of sources) {
    const group = byGrammar.get(source.grammar);
    if (group) group.push(source);
    else byGrammar.set(source.grammar, [source]);
  }
  const kept: ScoredPair[] = [];
  for (const [grammar, group] of byGrammar) {
    const keys: string[] = [];
    const prints: Fingerprints[] = [];
    for (const source of group) {
      const made = await fingerprint(source.text, grammar);
      await pause();
      if (made.tokens < KGRAM_LENGTH) continue;
      keys.push(source.key);
      prints.push(made);
    }
    const ignored = new Set<number>();
    if (options.template?.trim())
      for (const hash of (await fingerprint(options.template, grammar)).hashes) ignored.add(hash);
    const best = await bestPairs(prints, ignored, {
      minSimilarity: options.minSimilarity,
      most: options.maxPairs,
      pause,
    });
    for (const [n, { left, right, similarity }] of best.entries()) {
      kept.push({
        left: keys[left],
        right: keys[right],
        grammar,
        similarity: Math.round(similarity * 10_000) / 10_000,
        ...pairDetails(prints[left], prints[right], ignored),
      });
      if (n % 16 === 15) await pause();
    }
  }
  kept.sort((a, b) => b.similarity - a.similarity || b.longestFragment - a.longestFragment);
  kept.length = Math.min(kept.length, options.maxPairs);
  return kept;
}
