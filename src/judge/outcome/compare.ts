import type { CompareMode } from "../../core/config-model/config-schema";
import { linesMatchUnordered } from "./compare-lines";
import { floatsMatch, tokensMatchIgnoringCase } from "./compare-tokens";

/**
 * Output comparison: bytes, never decoded text, in one pass, linear in time and constant in extra
 * memory, and yielding to the event loop every CHUNK bytes so that a flood of output (3 MB of blank
 * lines, one endless line) never stalls the judge's lease renewals or other records.
 *
 * Rules (exact and whitespace; the tolerant comparisons are in compare-tokens.ts): CRLF and LF are
 * the same line end; a missing final line end does not matter.
 * - exact: otherwise byte for byte.
 * - whitespace: lines of tokens separated by spaces, tabs, \v, \f or \r; how many separators stand
 *   between tokens, at a line's start or at its end does not matter; blank lines between tokens count,
 *   blank lines before the first token or after the last do not.
 */

const LF = 0x0a;
const CR = 0x0d;
const CHUNK = 1 << 20;
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0b || b === 0x0c || b === CR;

/** Bytes with CRLF read as LF and one final LF dropped: what exact comparison compares. */
class ExactReader {
  private i = 0;
  private readonly end: number;

  constructor(private readonly bytes: Uint8Array) {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === LF) end -= end > 1 && bytes[end - 2] === CR ? 2 : 1;
    this.end = end;
  }

  /** The next byte, or -1 at the end. */
  next(): number {
    if (this.i >= this.end) return -1;
    const b = this.bytes[this.i++];
    if (b === CR && this.i < this.end && this.bytes[this.i] === LF) {
      this.i++;
      return LF;
    }
    return b;
  }

  get position(): number {
    return this.i;
  }
}

/**
 * The canonical form whitespace comparison compares, produced lazily: tokens joined by one space,
 * lines by one LF, nothing before the first token of a line or after its last, no trailing blank lines.
 * Pending separators are counted, not stored, and only emitted when a token follows.
 */
class TokenReader {
  private i = 0;
  private pendingLines = 0;
  private pendingSpace = false;
  private started = false;

  constructor(private readonly bytes: Uint8Array) {}

  next(): number {
    const { bytes } = this;
    while (this.i < bytes.length) {
      const b = bytes[this.i];
      if (b === LF) {
        this.pendingLines++;
        this.pendingSpace = false;
        this.i++;
      } else if (isBlank(b)) {
        this.pendingSpace = true;
        this.i++;
      } else {
        // A token byte: first whatever separator stood before it, then the byte itself.
        if (this.started && this.pendingLines > 0) {
          this.pendingLines--;
          this.pendingSpace = false;
          return LF;
        }
        if (this.started && this.pendingSpace && this.pendingLines === 0) {
          this.pendingSpace = false;
          return 0x20;
        }
        this.pendingLines = 0;
        this.pendingSpace = false;
        this.started = true;
        this.i++;
        return b;
      }
    }
    return -1;
  }

  get position(): number {
    return this.i;
  }
}

/** True when the program's output matches the expected output under the mode's rules. */
export async function outputMatches(
  actual: Uint8Array,
  expected: Uint8Array,
  ignoreWhitespace: boolean,
): Promise<boolean> {
  const a = ignoreWhitespace ? new TokenReader(actual) : new ExactReader(actual);
  const e = ignoreWhitespace ? new TokenReader(expected) : new ExactReader(expected);
  let nextYield = CHUNK;
  for (;;) {
    const x = a.next();
    if (x !== e.next()) return false;
    if (x === -1) return true;
    if (a.position > nextYield) {
      nextYield += CHUNK;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** A case's built-in comparison (config.json `compare`, with `epsilon` for `float`). */
export interface CompareRule {
  compare: CompareMode;
  epsilon: number | null;
}

/** True when the program's output matches the expected output under the case's comparison. */
export function judgeOutput(actual: Uint8Array, expected: Uint8Array, rule: CompareRule): Promise<boolean> {
  switch (rule.compare) {
    case "exact":
      return outputMatches(actual, expected, false);
    case "whitespace":
      return outputMatches(actual, expected, true);
    case "float":
      return floatsMatch(actual, expected, rule.epsilon ?? 0);
    case "tokens-icase":
      return tokensMatchIgnoringCase(actual, expected);
    case "lines-unordered":
      return linesMatchUnordered(actual, expected);
    case "none":
      return Promise.resolve(true);
  }
}
