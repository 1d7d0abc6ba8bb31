/**
 * Keyword rules (a forbidden `goto`, a required `#include <algorithm>`) matched against a submission's code
 * only: comments and string literals are blanked first, so a word in a comment neither costs nor earns points.
 */

export type SourceFamily = "c" | "c-templates" | "python" | "plain";

const C_LIKE = new Set("c h cc cpp cxx hpp hh java go rs js ts cs kt swift".split(" "));
/** Languages whose backticks open a string (Go's raw strings, JavaScript's templates); C's do not. */
const TEMPLATES = new Set(["go", "js", "ts"]);

/** By extension: C-like comments and strings, Python's, or none ("plain"). */
export function familyOf(path: string): SourceFamily {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "plain"; // `.c` alone is a hidden file with no extension
  const extension = name.slice(dot + 1).toLowerCase();
  if (extension === "py") return "python";
  if (TEMPLATES.has(extension)) return "c-templates";
  return C_LIKE.has(extension) ? "c" : "plain";
}

const IDENTIFIER_CHAR = /[\w$]|[^\0-\x7f]/;
const BLANK = /\s/;
const isIdentifierChar = (char: string | undefined) => char !== undefined && IDENTIFIER_CHAR.test(char);
const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";
// A backslash before a newline splices two lines into one (C's phase 2): a // comment or directive goes on.
const splicedAt = (text: string, newline: number) =>
  text[newline - 1] === "\\" || (text[newline - 1] === "\r" && text[newline - 2] === "\\");

function lineCommentEnd(text: string, from: number, splices: boolean): number {
  let newline = text.indexOf("\n", from);
  while (splices && newline >= 0 && splicedAt(text, newline)) newline = text.indexOf("\n", newline + 1);
  return newline < 0 ? text.length : newline;
}

/**
 * The end of a '…', "…" or `…` literal opened at `from` (backticks: Go's raw and JavaScript's template strings;
 * C has none). A newline ends the first two (no language here lets them span lines), so a stray quote, in an
 * `#if 0` block or a Rust lifetime, blanks one line and cannot hide the rest of the file.
 */
function quotedEnd(text: string, from: number, quote: string): number {
  for (let at = from + 1; at < text.length; at++) {
    const char = text[at];
    if (char === "\\") at += text[at + 1] === "\r" && text[at + 2] === "\n" ? 2 : 1;
    else if (char === quote) return at + 1;
    else if (char === "\n" && quote !== "`") return at;
  }
  return text.length;
}

/** The end of a C++ raw string whose quote is at `quote`, or -1 when no valid `delim(` follows it. */
function rawStringEnd(text: string, quote: number): number {
  // A delimiter has at most 16 characters: looking no further keeps `R"R"R"…` linear.
  const delimiter = /^[^\s()\\"]{0,16}(?=\()/.exec(text.slice(quote + 1, quote + 18))?.[0];
  if (delimiter === undefined) return -1;
  const close = text.indexOf(`)${delimiter}"`, quote + delimiter.length + 2);
  return close < 0 ? text.length : close + delimiter.length + 2;
}

/** The end of a pp-number (C's rule: digits, letters, dots, exponent signs, and ' as a digit separator). */
function numberEnd(text: string, from: number): number {
  let at = from + 1;
  for (;;) {
    const char = text[at];
    if (isIdentifierChar(char) || char === ".") at++;
    else if (char === "'" && isIdentifierChar(text[at + 1])) at += 2;
    else if ((char === "+" || char === "-") && /[eEpP]/.test(text[at - 1])) at++;
    else return at;
  }
}

const C_PREFIXES = new Set(["L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"]);

/** The C-family token at `at`: where it ends, and whether it is a line end, blank, comment, literal or code. */
function cToken(
  text: string,
  at: number,
  templates: boolean,
): [number, "newline" | "blank" | "comment" | "literal" | "code"] {
  const [char, next] = [text[at], text[at + 1]];
  if (char === "\n") return [at + 1, splicedAt(text, at) ? "blank" : "newline"];
  if (char === "/" && next === "/") return [lineCommentEnd(text, at, true), "comment"];
  if (char === "/" && next === "*") {
    const close = text.indexOf("*/", at + 2);
    return [close < 0 ? text.length : close + 2, "comment"];
  }
  if (char === "\\" || BLANK.test(char)) return [at + 1, "blank"];
  if (char === '"' || char === "'" || (templates && char === "`")) return [quotedEnd(text, at, char), "literal"];
  if (isDigit(char) || (char === "." && isDigit(next))) return [numberEnd(text, at), "code"];
  if (!isIdentifierChar(char)) return [at + 1, "code"];
  let end = at + 1;
  while (isIdentifierChar(text[end])) end++;
  const [word, quote] = [text.slice(at, end), text[end]];
  const raw = word.endsWith("R") && quote === '"' ? rawStringEnd(text, end) : -1;
  if (C_PREFIXES.has(word) && raw >= 0) return [raw, "literal"];
  if (C_PREFIXES.has(word) && (quote === '"' || quote === "'")) return [quotedEnd(text, end, quote), "literal"];
  return [end, "code"];
}

/** [start, end) pairs of C-family comments and literals, in order; literals on directive lines are kept. */
function cBlanks(text: string, templates: boolean): number[] {
  const blanks: number[] = [];
  let lineStart = true; // only blanks and comments so far on this logical line: a `#` opens a directive
  let directive = false;
  for (let at = 0; at < text.length; ) {
    const [end, kind] = cToken(text, at, templates);
    if (kind === "comment" || (kind === "literal" && !directive)) blanks.push(at, end);
    if (kind === "newline") [lineStart, directive] = [true, false];
    else if (kind === "literal" || kind === "code") {
      directive ||= lineStart && text[at] === "#";
      lineStart = false;
    }
    at = end;
  }
  return blanks;
}

function tripleQuotedEnd(text: string, from: number): number {
  const quotes = text.slice(from, from + 3);
  for (let at = from + 3; at < text.length; at++) {
    if (text[at] === "\\") at++;
    else if (text.startsWith(quotes, at)) return at + 3;
  }
  return text.length;
}

/**
 * [start, end) pairs of Python comments and strings. A prefix (r, b, f, rb, …) needs no handling: in raw
 * strings too a backslash keeps the next quote from closing the string; the prefix letters stay as code.
 */
function pythonBlanks(text: string): number[] {
  const blanks: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char !== "#" && char !== '"' && char !== "'") continue;
    const end =
      char === "#"
        ? lineCommentEnd(text, at, false)
        : text.startsWith(char.repeat(3), at)
          ? tripleQuotedEnd(text, at)
          : quotedEnd(text, at, char);
    blanks.push(at, end);
    at = end - 1;
  }
  return blanks;
}

/**
 * The text with comments and string/char literals replaced by spaces, every CR and LF kept (so line numbers and
 * columns, in UTF-16 units, stay). Unterminated block comments, raw and triple-quoted strings run to the end of
 * the file. Linear time.
 */
export function codeOnly(text: string, family: SourceFamily): string {
  if (family === "plain") return text;
  const blanks = family === "python" ? pythonBlanks(text) : cBlanks(text, family === "c-templates");
  let code = "";
  let kept = 0;
  for (let pair = 0; pair < blanks.length; pair += 2) {
    code += text.slice(kept, blanks[pair]) + text.slice(blanks[pair], blanks[pair + 1]).replace(/[^\r\n]/g, " ");
    kept = blanks[pair + 1];
  }
  return code + text.slice(kept);
}
