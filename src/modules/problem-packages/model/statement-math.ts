import { XMLParser } from "fast-xml-parser";

/**
 * Rendered math in imported statements (FPS's HTML, Hydro's Markdown with HTML in it) turned back into TeX,
 * once per formula (docs/problem-packages.md "Math in statements"). A statement copied from a page that rendered
 * its math holds each formula three times, as KaTeX's MathML, its annotation and its HTML (a reader sees "nnn"
 * for `$n$`): KaTeX (`<span class="katex">`), MathJax 2 (`<script type="math/tex">` beside its rendered spans),
 * MathJax 3 (`<mjx-container>` with its assistive MathML) and plain `<math>` become the TeX of their
 * `application/x-tex` annotation, or without one a best-effort TeX of the MathML.
 */

/** Receives each formula's TeX and whether it is displayed, returns what replaces the rendered formula. */
export type MathWriter = (tex: string, display: boolean) => string;

export const dollars: MathWriter = (tex, display) => (display ? `$$${tex}$$` : `$${tex}$`);

const OPENER = /<(span|div|mjx-container|math|script)\b[^>]*>/gi;
const RENDERED = /^(?:katex|katex-display|MathJax\w*|MJX\w*)$/;
/** What follows a MathJax 2 rendering that is dropped: its script's TeX, or the next part of its rendering. */
const NEXT_MATHJAX = /^\s*(?:<script\b[^>]*math\/tex|<(?:span|div)\b[^>]*\bclass\s*=\s*["'][^"']*\bMathJax)/i;

/** The html with every rendered formula replaced by `write(tex)`; anything else left as it was. */
export function mathToTex(html: string, write: MathWriter = dollars): string {
  if (!/katex|MathJax|MJX|<math\b|<mjx-|math\/tex/i.test(html)) return html;
  let out = "";
  let at = 0;
  OPENER.lastIndex = 0;
  for (let match = OPENER.exec(html); match; match = OPENER.exec(html)) {
    const formula = formulaAt(html, match, write);
    if (!formula) continue;
    out += html.slice(at, match.index) + formula.text;
    at = formula.end;
    OPENER.lastIndex = formula.end;
  }
  return out + html.slice(at);
}

interface Formula {
  text: string;
  end: number;
}

function formulaAt(html: string, match: RegExpExecArray, writer: MathWriter): Formula | null {
  const tag = match[1].toLowerCase();
  const open = match[0];
  const classes = (/\bclass\s*=\s*["']([^"']*)["']/i.exec(open)?.[1] ?? "").split(/\s+/);
  if (tag === "script") {
    if (!/\btype\s*=\s*["']math\/tex/i.test(open)) return null;
    const close = html.indexOf("</script>", match.index + open.length);
    if (close < 0) return null;
    const tex = html.slice(match.index + open.length, close).trim();
    return { text: write(tex, /mode\s*=\s*display/i.test(open)), end: close + "</script>".length };
  }
  if ((tag === "span" || tag === "div") && !classes.some((c) => RENDERED.test(c))) return null;
  const end = closingOf(html, tag, match.index + open.length);
  if (end < 0) return null;
  const inner = html.slice(match.index + open.length, end);
  const after = end + `</${tag}>`.length;
  // MathJax 2 keeps the TeX in the script after its rendered spans: those spans are dropped, the script kept.
  const mathJax = tag !== "mjx-container" && classes.some((c) => /^(MathJax|MJX)/.test(c));
  if (mathJax && NEXT_MATHJAX.test(html.slice(after, after + 512))) return { text: "", end: after };
  if (classes.includes("MathJax_Preview")) return { text: "", end: after };
  const display =
    classes.includes("katex-display") ||
    classes.includes("MathJax_Display") ||
    /\bdisplay\s*=\s*["'](true|block)["']/i.test(open) ||
    /<math\b[^>]*\bdisplay\s*=\s*["']block["']/i.test(inner);
  const tex = texOf(tag === "math" ? `${open}${inner}</math>` : inner);
  return tex === null ? null : { text: write(tex, display), end: after };

  function write(tex: string, shown: boolean) {
    return writer(shown ? tex : tex.replace(/\s*\n\s*/g, " "), shown);
  }
}

/** Where the element opened before `from` closes, counting nested elements of its name; -1 if it never does. */
function closingOf(html: string, tag: string, from: number): number {
  const token = new RegExp(`<(/?)${tag}\\b[^>]*?(/?)>`, "gi");
  token.lastIndex = from;
  let depth = 1;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    if (m[2]) continue;
    depth += m[1] ? -1 : 1;
    if (depth === 0) return m.index;
  }
  return -1;
}

/** The annotation's TeX, else the first `<math>`'s as best we can, else null (nothing to take). */
function texOf(fragment: string): string | null {
  const annotation = /<annotation\b[^>]*encoding\s*=\s*["']application\/x-tex["'][^>]*>([\s\S]*?)<\/annotation>/i.exec(
    fragment,
  );
  if (annotation) return decodeEntities(annotation[1]).trim();
  const math = /<math\b[\s\S]*?<\/math>/i.exec(fragment);
  return math ? texOfMathml(math[0]) : null;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  trimValues: false,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: true,
});

type MathNode = Record<string, unknown>;

/** MathML's common elements (mi, mn, mo, mtext, mrow, msub, msup, msubsup, mfrac, msqrt, mroot, …) as TeX. */
export function texOfMathml(mathml: string): string | null {
  try {
    return write(parser.parse(mathml) as MathNode[])
      .replace(/\s+/g, " ")
      .trim();
  } catch {
    return null;
  }
}

const SYMBOLS: Record<string, string> = {
  "≤": "\\le ",
  "≥": "\\ge ",
  "≠": "\\ne ",
  "×": "\\times ",
  "⋅": "\\cdot ",
  "·": "\\cdot ",
  "…": "\\ldots ",
  "⋯": "\\cdots ",
  "∑": "\\sum ",
  "∏": "\\prod ",
  "∞": "\\infty ",
  "→": "\\to ",
  "±": "\\pm ",
  "∈": "\\in ",
  "−": "-",
  "{": "\\{",
  "}": "\\}",
};

function write(nodes: MathNode[]): string {
  return nodes.map(writeOne).join("");
}

function writeOne(node: MathNode): string {
  if ("#text" in node) return String(node["#text"]);
  const name = Object.keys(node).find((key) => key !== ":@") ?? "";
  const children = ((node[name] as MathNode[]) ?? []).filter((c) => !("#text" in c) || String(c["#text"]).trim());
  const part = (i: number) => group(write(children[i] ? [children[i]] : []));
  switch (name) {
    case "annotation":
    case "annotation-xml":
      return "";
    case "semantics":
      return write(children.slice(0, 1));
    case "mo":
      return [...write(children).trim()].map((c) => SYMBOLS[c] ?? c).join("");
    case "mtext":
      return `\\text{${write(children)}}`;
    case "msub":
    case "munder":
      return `${part(0)}_${part(1)}`;
    case "msup":
    case "mover":
      return `${part(0)}^${part(1)}`;
    case "msubsup":
    case "munderover":
      return `${part(0)}_${part(1)}^${part(2)}`;
    case "mfrac":
      return `\\frac{${write(children.slice(0, 1))}}{${write(children.slice(1, 2))}}`;
    case "msqrt":
      return `\\sqrt{${write(children)}}`;
    case "mroot":
      return `\\sqrt[${write(children.slice(1, 2))}]{${write(children.slice(0, 1))}}`;
    default:
      // mi, mn, mrow, mstyle, math and whatever else: their content in order.
      return write(children);
  }
}

/** A sub- or superscript's operand: braced unless it is one character. */
const group = (tex: string) => (tex.trim().length === 1 ? tex.trim() : `{${tex.trim()}}`);

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** HTML's character references and its commonest names (HUSTOJ stores a title's commas as `&#44;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, body: string) => {
    if (!body.startsWith("#")) return NAMED[body.toLowerCase()] ?? entity;
    const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : entity;
  });
}
