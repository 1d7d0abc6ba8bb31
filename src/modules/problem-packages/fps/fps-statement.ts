import { NodeHtmlMarkdown } from "node-html-markdown";
import { refuse } from "../model/package-model";
import { decodeEntities, dollars, mathToTex } from "../model/statement-math";
import type { PackageAttachment } from "../model/package-model";

/**
 * An FPS item's statement (docs/problem-packages.md "FPS"): its HTML sections (HUSTOJ's editor writes HTML,
 * with Markdown inside `<span class="md">` or `[md]…[/md]`, which HUSTOJ renders with marked.js) as one
 * Markdown text, its samples as fenced blocks, and the images it carries as base64 `<img>` elements, stored
 * under safe names and linked by their `<src>` exactly as the HTML links them.
 */

export { decodeEntities };

export interface FpsSections {
  description: string;
  input: string;
  output: string;
  hint: string;
  source: string;
  samples: { input: string; output: string }[];
  images: { src: string; base64: string }[];
}

/** One image's limit, decoded: far above a statement figure, far below what would strain a config version. */
export const MAX_IMAGE_BYTES = 8 * 2 ** 20;

/** What an image's first bytes say it is: the extension it is stored under. */
function imageKind(bytes: Uint8Array): string | null {
  const at = (offset: number, signature: string) =>
    [...signature].every((char, i) => bytes[offset + i] === char.charCodeAt(0));
  if (at(0, "\x89PNG\r\n\x1a\n")) return "png";
  if (at(0, "\xff\xd8\xff")) return "jpg";
  if (at(0, "GIF87a") || at(0, "GIF89a")) return "gif";
  if (at(0, "BM")) return "bmp";
  if (at(0, "RIFF") && at(8, "WEBP")) return "webp";
  const head = new TextDecoder().decode(bytes.subarray(0, 1024));
  return /^\s*(<\?xml[^>]*>\s*)?(<!--(?:(?!-->)[\s\S])*-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/.test(head) ? "svg" : null;
}

export function fpsStatement(
  sections: FpsSections,
  where: string,
  files: Map<string, Uint8Array>,
  notes: string[],
): { content: string; attachments: PackageAttachment[] } {
  const attachments = imagesOf(sections.images, where, files, notes);
  const links = new Set<string>();
  const parts: string[] = [];
  const section = (heading: string, html: string) => {
    const markdown = html.trim() ? markdownOf(html, links, `${where}: <${heading.toLowerCase()}>`, notes) : "";
    if (markdown) parts.push(`## ${heading}\n\n${markdown}`);
  };
  section("Description", sections.description);
  section("Input", sections.input);
  section("Output", sections.output);
  const shown = sections.samples.filter((s) => s.input.trim() || s.output.trim());
  shown.forEach((sample, i) => {
    const n = shown.length > 1 ? ` ${i + 1}` : "";
    parts.push(`## Sample Input${n}\n\n${fenced(sample.input)}`, `## Sample Output${n}\n\n${fenced(sample.output)}`);
  });
  section("Hint", sections.hint);
  section("Source", sections.source);
  if (sections.source.trim()) notes.push(`${where}: <source> kept in the statement`);
  const carried = new Set(sections.images.map((image) => image.src.trim()));
  const outside = [...links].filter((link) => !carried.has(link));
  if (outside.length > 0)
    notes.push(`${where}: images the file does not carry stay links as they were: ${outside.join(", ")}`);
  return { content: parts.join("\n\n"), attachments };
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fenced(body: string): string {
  const text = body.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
  const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 2);
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** Each distinct `<img>` decoded and stored as statement/<a safe name>; a file that is no image is left out. */
function imagesOf(
  images: FpsSections["images"],
  where: string,
  files: Map<string, Uint8Array>,
  notes: string[],
): PackageAttachment[] {
  const attachments: PackageAttachment[] = [];
  const names = new Set<string>();
  for (const [i, image] of images.entries()) {
    const src = image.src.trim();
    if (!src || attachments.some((a) => a.name === src)) continue;
    const bytes = base64Bytes(image.base64, `${where}: the image ${src}`);
    const kind = imageKind(bytes);
    if (!kind) {
      const what = bytes.length === 0 ? "has no valid base64 data" : "is not PNG, JPEG, GIF, BMP, WebP or SVG data";
      notes.push(`${where}: the image ${src} ${what}: not imported`);
      continue;
    }
    const name = safeName(src, kind, i + 1, names);
    names.add(name);
    files.set(`statement/${name}`, bytes);
    attachments.push({ path: `statement/${name}`, name: src });
  }
  return attachments;
}

/** Checked before decoding, so a huge or garbled `<base64>` costs no memory; empty bytes: not base64. */
function base64Bytes(encoded: string, what: string): Uint8Array {
  const clean = encoded.replace(/^\s*data:[^,]*;base64,/i, "").replace(/\s+/g, "");
  if (Math.floor((clean.length * 3) / 4) > MAX_IMAGE_BYTES)
    throw refuse(`${what} is larger than ${MAX_IMAGE_BYTES / 2 ** 20} MiB`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) return new Uint8Array();
  return new Uint8Array(Buffer.from(clean, "base64"));
}

/**
 * The src's last segment, kept to letters, digits, `.`, `-` and `_` (no folder, no `..`, no absolute path can
 * come through), short enough for any file system, with the extension its bytes call for, and unique.
 */
function safeName(src: string, kind: string, index: number, taken: Set<string>): string {
  let last = src.split(/[?#]/)[0].split(/[\\/]/).at(-1) ?? "";
  try {
    last = decodeURIComponent(last);
  } catch {
    // A stray `%` is kept as it is, then replaced below like any other sign.
  }
  const cleaned = [...last.replace(/[^\p{L}\p{N}._-]+/gu, "_").replace(/^[._-]+/, "")].slice(0, 60).join("");
  const stem = cleaned.replace(/\.[^.]*$/, "") || `image${index}`;
  const extension = cleaned.slice(stem.length + 1).toLowerCase();
  const same = extension === kind || (kind === "jpg" && extension === "jpeg");
  const name = `${stem}.${same ? extension : kind}`;
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${n}-${name}`;
  return unique;
}

/**
 * `$…$`, `$$…$$`, `\(…\)` and `\[…\]`: TeX that Markdown escaping would break, kept as written. No span's body
 * may hold its own opener, so a section of unclosed openers is scanned once, not once per opener.
 */
const MATH = /\$\$[^$<]+\$\$|\$[^$<\n]+\$|\\\((?:[^<\n\\]|\\[^()<\n])*\\\)|\\\[(?:[^<\\]|\\[^[\]<])*\\\]/g;

/** One HTML section as Markdown; the srcs of the images it links are added to `links`. */
export function markdownOf(html: string, links: Set<string>, what: string, notes: string[]): string {
  const math: string[] = [];
  const marked = html.replace(/\[md\]/gi, '<div class="md">').replace(/\[\/md\]/gi, "</div>");
  // Rendered formulas (KaTeX, MathJax, MathML) first, as their TeX, then TeX written as TeX: both kept as written.
  const held = (tex: string) => `\uE000${math.push(tex) - 1}\uE001`;
  const prepared = mathToTex(marked, (tex, display) => held(dollars(tex, display))).replace(MATH, (span) =>
    held(decodeEntities(span)),
  );
  const seen = { links, dataImages: 0 };
  const converter = converterFor(seen);
  let markdown: string;
  try {
    markdown = converter.translate(prepared);
  } catch (error) {
    throw refuse(`${what} could not be read as HTML (${error instanceof Error ? error.message : error})`);
  }
  if (seen.dataImages > 0)
    notes.push(`${what}: ${seen.dataImages} image(s) written inside the HTML (data: URIs) left out`);
  return markdown
    .replace(/\uE000(\d+)\uE001/g, (placeholder, i) => math[Number(i)] ?? placeholder)
    .replace(/^[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** node-html-markdown with HUSTOJ's ways: Markdown blocks, powers, fenced <pre>, images counted and linked. */
function converterFor(seen: { links: Set<string>; dataImages: number }): NodeHtmlMarkdown {
  return new NodeHtmlMarkdown(
    // Three spaces nest a list under an item of an ordered one ("1. "), where two would not.
    { indent: "   " },
    {
      // HUSTOJ hands these to marked.js as they are: their text is Markdown already.
      "div,span,p": ({ node }) =>
        node.classList?.contains("md")
          ? {
              content: node.innerHTML.replace(/<br\s*\/?>/gi, "\n").replaceAll("&nbsp;", "\u00a0"),
              recurse: false,
              noEscape: true,
              surroundingNewlines: 2,
            }
          : {},
      // Markdown has no powers or indices: 10<sup>9</sup> stays HTML rather than becoming 109.
      sup: { prefix: "<sup>", postfix: "</sup>" },
      sub: { prefix: "<sub>", postfix: "</sub>" },
      pre: ({ node }) =>
        node.childNodes.length === 1 && (node.firstChild as { tagName?: string } | null)?.tagName === "CODE"
          ? {}
          : {
              noEscape: true,
              preserveWhitespace: true,
              surroundingNewlines: 2,
              postprocess: ({ content }) => fenced(content),
            },
      img: ({ node }) => {
        const src = node.getAttribute("src") ?? "";
        if (/^data:/i.test(src)) seen.dataImages++;
        if (!src || /^data:/i.test(src)) return { ignore: true };
        seen.links.add(src);
        const alt = (node.getAttribute("alt") ?? "").replace(/[[\]\\]/g, "\\$&");
        return { content: `![${alt}](${/[\s()<>]/.test(src) ? `<${src}>` : src})`, recurse: false };
      },
    },
  );
}
