import { File, FingerprintIndex, Region, TokenizedFile, type Pair } from "@dodona/dolos-core";
import Parser from "web-tree-sitter";
import { dirname, extname, join } from "node:path";

/**
 * Code similarity the way Dolos measures it (docs/running-a-course.md "Code similarity"): each source is parsed with
 * tree-sitter and turned into its syntax tree's node types in pre-order, each node's children in
 * parentheses, so names, comments, literals and layout do not matter; Dolos's index (@dodona/dolos-core)
 * fingerprints the token streams by winnowing and scores each pair by the share of both files that their
 * common fingerprints cover. Framework-free: the analysis job feeds it sources and stores what it returns.
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

/** Dolos's defaults: k-grams of 23 tokens, one fingerprint kept per window of 17. */
const KGRAM_LENGTH = 23;
const KGRAMS_IN_WINDOW = 17;

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

const parsers = new Map<string, Promise<Parser>>();

/** A parser for the grammar, its WebAssembly loaded once per process. */
function parserFor(grammar: string): Promise<Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = (async () => {
      await Parser.init();
      const dir = join(dirname(require.resolve("tree-sitter-wasms/package.json")), "out");
      const language = await Parser.Language.load(join(dir, `tree-sitter-${grammar}.wasm`));
      const made = new Parser();
      made.setLanguage(language);
      return made;
    })();
    parsers.set(grammar, parser);
  }
  return parser;
}

const regionOf = (node: Parser.SyntaxNode) =>
  new Region(node.startPosition.row, node.startPosition.column, node.endPosition.row, node.endPosition.column);

/**
 * The token stream: `(`, the node's type, its children's tokens, `)` for each node but comments. Each
 * token is placed where its node has text of its own (not its children's), so fragments point at lines.
 */
export async function tokenize(path: string, text: string, grammar: string): Promise<TokenizedFile> {
  const parser = await parserFor(grammar);
  const tree = parser.parse(text);
  const tokens: string[] = [];
  const mapping: Region[] = [];
  const visit = (node: Parser.SyntaxNode) => {
    if (node.type.includes("comment")) return;
    const full = regionOf(node);
    const own =
      Region.firstDiff(full, node.children.map(regionOf)) ??
      new Region(full.startRow, full.startCol, full.startRow, full.startCol);
    tokens.push("(", node.type);
    mapping.push(own, own);
    for (const child of node.children) visit(child);
    tokens.push(")");
    mapping.push(own);
  };
  try {
    visit(tree.rootNode);
  } finally {
    tree.delete();
  }
  return new TokenizedFile(new File(path, text), tokens, mapping);
}

const linesOf = (region: Region): [number, number] => [region.startRow + 1, region.endRow + 1];

function scored(pair: Pair, keys: Map<TokenizedFile, string>, grammar: string): ScoredPair {
  return {
    left: keys.get(pair.leftFile)!,
    right: keys.get(pair.rightFile)!,
    grammar,
    similarity: Math.round(pair.similarity * 10_000) / 10_000,
    longestFragment: pair.longest,
    overlap: pair.overlap,
    fragments: pair
      .buildFragments()
      .map((f) => ({ left: linesOf(f.leftSelection), right: linesOf(f.rightSelection) }))
      .sort((a, b) => a.left[0] - b.left[0]),
  };
}

/**
 * Every pair of sources in the same grammar, highest similarity first, those under `minSimilarity` and
 * past `maxPairs` left out. Sources that do not parse into any token are left out.
 */
export async function analyse(sources: Source[], options: AnalysisOptions): Promise<ScoredPair[]> {
  const pause = options.pause ?? (async () => {});
  const byGrammar = new Map<string, Source[]>();
  for (const source of sources) byGrammar.set(source.grammar, [...(byGrammar.get(source.grammar) ?? []), source]);
  const kept: ScoredPair[] = [];
  for (const [grammar, group] of byGrammar) {
    const index = new FingerprintIndex(KGRAM_LENGTH, KGRAMS_IN_WINDOW);
    const keys = new Map<TokenizedFile, string>();
    const files: TokenizedFile[] = [];
    for (const source of group) {
      const file = await tokenize(source.key, source.text, grammar);
      await pause();
      if (file.tokens.length < KGRAM_LENGTH) continue;
      keys.set(file, source.key);
      files.push(file);
      index.addFiles([file]);
    }
    // After the files: the index marks a fingerprint ignored in the files that hold it when it is added.
    if (options.template?.trim()) index.addIgnoredFile(await tokenize("template", options.template, grammar));
    // Every pair's similarity the way Dolos's Pair computes it, without its longest common run (quadratic
    // in the shared fingerprints: 3 ms a pair of similar files, 144 s for a class of 300). Only the pairs
    // kept are then made Pairs, with that run and their fragments.
    const entries = new Map(index.entries().map((entry) => [entry.file, entry]));
    const candidates: { left: TokenizedFile; right: TokenizedFile; similarity: number }[] = [];
    for (let i = 0; i < files.length; i++) {
      const left = entries.get(files[i])!;
      for (let j = i + 1; j < files.length; j++) {
        const similarity = quickSimilarity(left, entries.get(files[j])!);
        if (similarity >= options.minSimilarity) candidates.push({ left: files[i], right: files[j], similarity });
      }
      // Only the best are kept while the pairs are scored: memory stays bounded by maxPairs.
      if (candidates.length > options.maxPairs * 4) trim(candidates, options.maxPairs * 2);
      await pause();
    }
    trim(candidates, options.maxPairs);
    // Each made Pair is scored and let go at once: a Pair of two similar files holds megabytes.
    for (const { left, right } of candidates) {
      kept.push(scored(index.getPair(left, right), keys, grammar));
      if (kept.length % 16 === 0) await pause();
    }
  }
  kept.sort((a, b) => b.similarity - a.similarity || b.longestFragment - a.longestFragment);
  kept.length = Math.min(kept.length, options.maxPairs);
  return kept;
}

type Entry = ReturnType<FingerprintIndex["entries"]>[number];

/** Dolos's Pair.similarity: the shared fingerprints' occurrences in both files over both files' k-grams. */
export function quickSimilarity(a: Entry, b: Entry): number {
  const [small, large] = a.shared.size < b.shared.size ? [a, b] : [b, a];
  let covered = 0;
  for (const fingerprint of small.shared) {
    if (!large.shared.has(fingerprint)) continue;
    covered += fingerprint.occurrencesOf(a.file).length + fingerprint.occurrencesOf(b.file).length;
  }
  // As Dolos writes it: the left file's ignored fingerprints counted for both sides.
  const denominator = a.kgrams.length + b.kgrams.length - 2 * a.ignored.size;
  return denominator > 0 ? covered / denominator : 0;
}

function trim(candidates: { similarity: number }[], most: number): void {
  candidates.sort((x, y) => y.similarity - x.similarity);
  candidates.length = Math.min(candidates.length, most);
}
