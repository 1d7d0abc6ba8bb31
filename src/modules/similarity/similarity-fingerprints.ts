import Parser from "web-tree-sitter";
import { dirname, join } from "node:path";

/**
 * One source's winnowed fingerprints, in typed arrays (docs/running-a-course.md "Code similarity"). The
 * syntax tree is walked once with a cursor and its tokens are hashed as they are met; neither the tokens
 * nor the tree outlive the call, so a report holds a few kilobytes per submission instead of its tokens.
 *
 * The fingerprints are the ones @dodona/dolos-core makes of our token stream (its hash parameters and its
 * way of choosing the minimum of a window), so a pair scores what Dolos scores it:
 * tests/unit/similarity-engine.test.ts checks it against Dolos itself.
 */

/** Dolos's defaults: k-grams of 23 tokens, one fingerprint kept per window of 17. */
export const KGRAM_LENGTH = 23;
const KGRAMS_IN_WINDOW = 17;

/** Dolos's moduli and bases (the largest 26-bit prime; bases that fill its bits): the same hashes. */
const MOD = 33_554_393;
const TOKEN_BASE = 747_287;
const ROLLING_BASE = 4_194_301;

export interface Fingerprints {
  /** Tokens in the source: one under KGRAM_LENGTH makes no k-gram. */
  tokens: number;
  /** The kept k-grams' hashes, in the order of the source. */
  hashes: Int32Array;
  /** Each kept k-gram's first and last line, 0-based. */
  startRows: Int32Array;
  endRows: Int32Array;
}

const parsers = new Map<string, Promise<Parser>>();

/** A parser for the grammar, its WebAssembly loaded once per process. */
export function parserFor(grammar: string): Promise<Parser> {
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

function hashToken(token: string): number {
  let hash = 0;
  for (let i = 0; i < token.length; i++) hash = ((hash + token.charCodeAt(i)) * TOKEN_BASE) % MOD;
  return hash;
}
const OPEN = hashToken("(");
const CLOSE = hashToken(")");
/** A node type's hash, or -1 for a comment (left out with what it holds); a grammar has a few hundred. */
const typeHashes = new Map<string, number>();
const typeHash = (type: string) => {
  let hash = typeHashes.get(type);
  if (hash === undefined) {
    hash = type.includes("comment") ? -1 : hashToken(type);
    typeHashes.set(type, hash);
  }
  return hash;
};

/** The token stream, as hashes with each token's lines: a growing set of typed arrays. */
class TokenStream {
  length = 0;
  hashes = new Float64Array(4096);
  startRows = new Int32Array(4096);
  endRows = new Int32Array(4096);
  push(hash: number, startRow: number, endRow: number) {
    if (this.length === this.hashes.length) {
      const grow = <T extends Float64Array | Int32Array>(from: T, to: T) => {
        to.set(from);
        return to;
      };
      this.hashes = grow(this.hashes, new Float64Array(this.length * 2));
      this.startRows = grow(this.startRows, new Int32Array(this.length * 2));
      this.endRows = grow(this.endRows, new Int32Array(this.length * 2));
    }
    this.hashes[this.length] = hash;
    this.startRows[this.length] = startRow;
    this.endRows[this.length++] = endRow;
  }
}

/**
 * The tokens: `(`, the node's type, its children's tokens, `)` for each node but comments, each placed on
 * the lines the node has text of its own (from its start to its first child's, as Dolos's Region.firstDiff
 * finds for a tree-sitter node), so fragments point at lines. A cursor walks the tree: no node objects.
 */
function tokensOf(tree: Parser.Tree): TokenStream {
  const out = new TokenStream();
  const cursor = tree.walk();
  // Each open node's own lines, for its closing token.
  const open: number[] = [];
  try {
    for (;;) {
      const hash = typeHash(cursor.nodeType);
      let descended = false;
      if (hash >= 0) {
        const start = cursor.startPosition.row;
        const end = cursor.endPosition.row;
        descended = cursor.gotoFirstChild();
        const ownEnd = descended ? cursor.startPosition.row : end;
        out.push(OPEN, start, ownEnd);
        out.push(hash, start, ownEnd);
        if (descended) open.push(start, ownEnd);
        else out.push(CLOSE, start, ownEnd);
      }
      if (descended) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return out;
        const ownEnd = open.pop()!;
        out.push(CLOSE, open.pop()!, ownEnd);
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Winnowing (Schleimer, Wilkerson and Aiken, 2003): a rolling hash of every k-gram, and of each window of
 * KGRAMS_IN_WINDOW k-grams the minimum kept, recorded when it changes. Ties go the way Dolos's go (the
 * rightmost, but a minimum that left the window is replaced by an older equal before the newest).
 */
function winnow(tokens: TokenStream): Fingerprints {
  const k = KGRAM_LENGTH;
  const w = KGRAMS_IN_WINDOW;
  let drop = 1;
  for (let i = 0; i < k; i++) drop = (drop * ROLLING_BASE) % MOD;
  drop = MOD - drop;
  const kept = new TokenStream();
  const window = new Float64Array(w).fill(Number.MAX_SAFE_INTEGER);
  let hash = 0;
  let at = 0;
  let min = 0;
  const keep = (kgram: number) => {
    const last = kgram + k - 1;
    const { startRows, endRows } = tokens;
    kept.push(window[min], Math.min(startRows[kgram], startRows[last]), Math.max(endRows[kgram], endRows[last]));
  };
  for (let i = 0; i < tokens.length; i++) {
    // The token k places back leaves the hash (0 before there were k): hash·base + new − old·baseᵏ.
    const leaving = i >= k ? tokens.hashes[i - k] : 0;
    hash = (ROLLING_BASE * hash + tokens.hashes[i] + drop * leaving) % MOD;
    if (i < k - 1) continue;
    const kgram = i - k + 1;
    at = (at + 1) % w;
    window[at] = hash;
    if (min === at) {
      // The minimum left the window: the smallest of the rest, the rightmost of equals, else the newest.
      for (let j = (at + 1) % w; j !== at; j = (j + 1) % w) if (window[j] <= window[min]) min = j;
      keep(kgram - ((at - min + w) % w));
    } else if (window[at] <= window[min]) {
      min = at;
      keep(kgram);
    }
  }
  return {
    tokens: tokens.length,
    hashes: Int32Array.from(kept.hashes.subarray(0, kept.length)),
    startRows: kept.startRows.slice(0, kept.length),
    endRows: kept.endRows.slice(0, kept.length),
  };
}

/** The source's fingerprints; the tree and the tokens are let go before it returns. */
export async function fingerprint(text: string, grammar: string): Promise<Fingerprints> {
  const tree = (await parserFor(grammar)).parse(text);
  try {
    return winnow(tokensOf(tree));
  } finally {
    tree.delete();
  }
}
