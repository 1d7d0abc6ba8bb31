/**
 * The token comparisons (docs/config-reference.md "Comparing output"): `float` and `tokens-icase`. Like compare.ts they
 * read bytes, never trust the output to be text, run in linear time and yield to the event loop every
 * CHUNK bytes, so 16 MB of output or 3 MB of blank lines never stall the judge's lease renewals.
 */

const CHUNK = 1 << 20;
/** Token separators: space, \t, \n, \v, \f, \r. */
const isSpace = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d);
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Tokens (runs of non-separator bytes) one at a time, as offsets into the bytes: nothing is copied. */
class Tokens {
  start = 0;
  end = 0;
  private i = 0;

  /** The bytes as a Buffer once, for reading a token as latin1 text without a copy per token. */
  readonly text: Buffer;

  constructor(readonly bytes: Uint8Array) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** Moves to the next token; false at the end. */
  next(): boolean {
    const { bytes } = this;
    while (this.i < bytes.length && isSpace(bytes[this.i])) this.i++;
    if (this.i >= bytes.length) return false;
    this.start = this.i;
    while (this.i < bytes.length && !isSpace(bytes[this.i])) this.i++;
    this.end = this.i;
    return true;
  }

  get length(): number {
    return this.end - this.start;
  }

  get position(): number {
    return this.i;
  }
}

function sameBytes(a: Tokens, b: Tokens): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a.bytes[a.start + k] !== b.bytes[b.start + k]) return false;
  return true;
}

/** Compares token by token with `same`, the line structure aside; both must run out together. */
async function eachTokenPair(
  actual: Uint8Array,
  expected: Uint8Array,
  same: (a: Tokens, e: Tokens) => boolean,
): Promise<boolean> {
  const a = new Tokens(actual);
  const e = new Tokens(expected);
  let nextYield = CHUNK;
  for (;;) {
    const more = a.next();
    if (more !== e.next()) return false;
    if (!more) return true;
    if (!sameBytes(a, e) && !same(a, e)) return false;
    if (a.position > nextYield) {
      nextYield = a.position + CHUNK;
      await tick();
    }
  }
}

/**
 * A decimal number as programs print them: `-1`, `+.5`, `3.`, `6.02e23`. No `nan`, `inf` or hex. The
 * digits before and after the point are separate groups: `\d+\.?\d*` backtracked quadratically on a
 * long run of digits that ended in a letter (a student's 150,000 digits took 25 s, a megabyte days).
 */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Longer than any double needs: not read as a number at all (it still matches itself byte for byte). */
const NUMBER_MAX_LENGTH = 1024;
/** Binary floating point cannot hold most decimals exactly: an error exactly at epsilon still passes. */
const ROUNDING_SLACK = 1e-15;

function numberOf(t: Tokens): number | null {
  if (t.end - t.start > NUMBER_MAX_LENGTH) return null;
  const text = t.text.toString("latin1", t.start, t.end);
  if (!NUMBER.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/**
 * Tokens where numbers match within `epsilon`, absolute or relative to the expected value, whichever
 * is looser; other tokens match byte for byte. A number the program prints where a word is expected,
 * a word (`nan`, `inf`) where a number is, or a value too large for a double, is a mismatch.
 */
export function floatsMatch(actual: Uint8Array, expected: Uint8Array, epsilon: number): Promise<boolean> {
  return eachTokenPair(actual, expected, (a, e) => {
    const want = numberOf(e);
    const got = want === null ? null : numberOf(a);
    if (want === null || got === null) return false;
    const scale = Math.max(1, Math.abs(want));
    return Math.abs(got - want) <= (epsilon + ROUNDING_SLACK) * scale;
  });
}

const isAscii = (t: Tokens) => {
  for (let k = t.start; k < t.end; k++) if (t.bytes[k] >= 0x80) return false;
  return true;
};
const lowerAscii = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
/** Full case folding as JavaScript's case mappings give it: ß, SS and ẞ fold alike, Σ/σ/ς too. */
const fold = (text: string) => text.toLowerCase().toUpperCase().toLowerCase();

/**
 * Tokens equal but for letter case: ASCII by bytes, anything else by Unicode case folding. Tokens that
 * are not valid UTF-8 only match byte for byte (decoding would make different bytes alike).
 */
export function tokensMatchIgnoringCase(actual: Uint8Array, expected: Uint8Array): Promise<boolean> {
  return eachTokenPair(actual, expected, (a, e) => {
    if (isAscii(a) && isAscii(e)) {
      if (a.length !== e.length) return false;
      for (let k = 0; k < a.length; k++) {
        if (lowerAscii(a.bytes[a.start + k]) !== lowerAscii(e.bytes[e.start + k])) return false;
      }
      return true;
    }
    try {
      const left = strictUtf8.decode(a.bytes.subarray(a.start, a.end));
      const right = strictUtf8.decode(e.bytes.subarray(e.start, e.end));
      return fold(left) === fold(right);
    } catch {
      return false;
    }
  });
}
