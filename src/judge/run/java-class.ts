/**
 * The public top-level type a Java source declares, read the way javac reads it: Unicode escapes first, then
 * comments, string and char literals and text blocks skipped. The java preset names its file and its jar's entry
 * point after it (presets.ts, `{javaClass}`). Anything that is not a Java identifier is refused rather than
 * passed on: as javac's argument, `@x.java` would be an argument file of the submission's (`-Xplugin:…`).
 */
export type JavaClass = { name: string } | { error: string };

/** The name when the source declares no public type: the file stays Main.java. */
export const DEFAULT_JAVA_CLASS = "Main";

// Character.isJavaIdentifierStart, then isJavaIdentifierPart, in Unicode's general categories.
const WORD = /[\p{L}\p{Nl}\p{Sc}\p{Pc}][\p{L}\p{Nl}\p{Sc}\p{Pc}\p{Nd}\p{Mn}\p{Mc}\p{Cf}]*/uy;
const NUMBER = /[0-9][0-9A-Za-z_.]*/y;
// Reserved words, literals and the names a type may not take (JLS 3.8, 3.9).
const NOT_A_TYPE_NAME = new Set(
  (
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends " +
    "final finally float for goto if implements import instanceof int interface long native new package private " +
    "protected public return short static strictfp super switch synchronized this throw throws transient try void " +
    "volatile while _ true false null var yield record sealed permits"
  ).split(" "),
);

/**
 * JLS 3.3: `\uXXXX` (any number of u's) is the character it names, before anything else is read, so an escaped
 * line break ends a `//` comment. A backslash escaped by the one before it starts no escape.
 */
export function translateUnicodeEscapes(text: string): string {
  return text.replace(/\\+u+([0-9a-fA-F]{4})/g, (match, hex: string) => {
    const slashes = match.length - match.replace(/^\\+/, "").length;
    if (slashes % 2 === 0) return match;
    return match.slice(0, slashes - 1) + String.fromCharCode(Number.parseInt(hex, 16));
  });
}

interface Token {
  text: string;
  /** Where it starts in the translated text. */
  at: number;
  word: boolean;
}

/** What a sticky pattern matches at `at`, or "". */
function matchAt(pattern: RegExp, text: string, at: number): string {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0] ?? "";
}

/**
 * Java's tokens, roughly: words (identifiers and keywords) and single other characters; whitespace, comments,
 * literals and numbers are skipped. An unclosed comment or text block ends the source, as it ends javac's.
 */
function* tokens(text: string): Generator<Token> {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    let next: number;
    if (" \t\f\r\n\u001a".includes(c)) next = i + 1;
    else if (text.startsWith("//", i)) next = lineEnd(text, i);
    else if (text.startsWith("/*", i)) next = text.indexOf("*/", i + 2) + 2;
    else if (text.startsWith('"""', i)) next = literalEnd(text, i + 3, '"""', false);
    else if (c === '"' || c === "'") next = literalEnd(text, i + 1, c, true);
    else if (c >= "0" && c <= "9") next = i + matchAt(NUMBER, text, i).length;
    else {
      const word = matchAt(WORD, text, i);
      const token = word || String.fromCodePoint(text.codePointAt(i)!);
      yield { text: token, at: i, word: word !== "" };
      next = i + token.length;
    }
    if (next <= i) return;
    i = next;
  }
}

/** Where a `//` comment ends: a line terminator is LF, CR or CRLF. */
function lineEnd(text: string, from: number): number {
  const breaks = /[\r\n]/g;
  breaks.lastIndex = from;
  return breaks.exec(text)?.index ?? text.length;
}

/**
 * Just past the literal's closing quote, backslash escapes skipped; -1 when a text block never closes. A string
 * or char literal stops at the end of its line (javac refuses it; the rest of the file is read on).
 */
function literalEnd(text: string, from: number, quote: string, oneLine: boolean): number {
  let j = from;
  while (j < text.length) {
    if (text[j] === "\\") j += 2;
    else if (text.startsWith(quote, j)) return j + quote.length;
    else if (oneLine && (text[j] === "\n" || text[j] === "\r")) return j;
    else j++;
  }
  return oneLine ? text.length : -1;
}

/**
 * The first public top-level class, interface, enum or record: `Main` when there is none, an error when the
 * word after its keyword is not a name a type may take. Only declarations outside every brace, parenthesis
 * and bracket count (an annotation's `X.class`, a nested class, a method's body are inside one). Read in one
 * pass, token by token, stopping at the declaration: no list of the source's tokens is kept.
 */
export function javaPublicClass(source: string, file: string): JavaClass {
  const text = translateUnicodeEscapes(source);
  let depth = 0;
  let isPublic = false;
  let previous = "";
  // The public declaration's keyword once seen: the next token is its name (`record` only if it is a word).
  let keyword: Token | null = null;
  for (const token of tokens(text)) {
    if (keyword && (token.word || keyword.text !== "record")) return nameAfter(keyword, token, text, file);
    keyword = null;
    if ("{([".includes(token.text)) depth++;
    else if ("})]".includes(token.text)) depth = Math.max(0, depth - 1);
    const topLevel = depth === 0 && previous !== ".";
    previous = token.text;
    if (!topLevel) continue;
    if (token.text === ";" || token.text === "}") isPublic = false;
    else if (token.text === "public") isPublic = true;
    else if (isPublic && ["class", "interface", "enum", "record"].includes(token.text)) keyword = token;
  }
  if (keyword && keyword.text !== "record") return nameAfter(keyword, null, text, file);
  return { name: DEFAULT_JAVA_CLASS };
}

function nameAfter(keyword: Token, name: Token | null, text: string, file: string): JavaClass {
  if (name?.word && !NOT_A_TYPE_NAME.has(name.text)) return { name: name.text };
  const found = name ? JSON.stringify(/^\S{1,40}/u.exec(text.slice(name.at, name.at + 200))?.[0]) : "nothing";
  const line = text.slice(0, keyword.at).split("\n").length;
  return { error: `${file}:${line}: a public ${keyword.text}'s name must be a Java identifier, not ${found}` };
}
