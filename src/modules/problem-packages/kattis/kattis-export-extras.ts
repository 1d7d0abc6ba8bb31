import type { KattisVersion } from "./kattis-export-version";

/**
 * What an export writes for a problem that did not come from a Kattis package (docs/problem-packages.md "Export
 * as a Kattis package"): its statement named by its language, the files it links inside the package with the
 * links rewritten to them, and the package's own solutions (FPS's, Hydro's std/, Polygon's) as submissions.
 */

/** verifyproblem's rule for every file and folder name. */
const SAFE_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$/;
const IMAGE = /\.(png|jpe?g)$/i;

/**
 * A statement's language from its script, since no import keeps one for a problem's own text: Han without kana
 * is Chinese, kana Japanese, Hangul Korean, Cyrillic Russian; anything else English.
 */
export function scriptLanguage(text: string): string {
  const count = (pattern: RegExp) => (text.match(pattern) ?? []).length;
  const letters = Math.max(1, count(/\p{L}/gu));
  if (count(/[\p{sc=Hiragana}\p{sc=Katakana}]/gu) > 0) return "ja";
  if (count(/\p{sc=Hangul}/gu) / letters > 0.1) return "ko";
  if (count(/\p{sc=Han}/gu) / letters > 0.1) return "zh";
  if (count(/\p{sc=Cyrillic}/gu) / letters > 0.3) return "ru";
  return "en";
}

/** A name verifyproblem takes (one segment; other characters as `_`), not yet in `taken`. */
export function safeName(name: string, taken: Set<string>): string {
  let safe = name.replaceAll("/", "_").replace(/[^a-zA-Z0-9_.-]/g, "_");
  if (!SAFE_NAME.test(safe)) safe = `_${safe}`.slice(0, 200);
  const dot = safe.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ""];
  for (let n = 2; taken.has(safe); n++) safe = `${stem}-${n}${extension}`;
  taken.add(safe);
  return safe;
}

export interface StoredAttachment {
  name: string;
  digest: string;
  /** Where the statement links it (problem-packages.service.ts attachmentPath). */
  url: string;
}

/**
 * Each attachment's place in the package (an image beside the statement, where verifyproblem looks for it;
 * another file in attachments/) and the statement with its links to this server rewritten to them.
 */
export function attachmentPlaces(content: string, attachments: StoredAttachment[]) {
  const taken = new Set<string>();
  const places = attachments.map((a) => {
    const name = safeName(a.name, taken);
    return IMAGE.test(name)
      ? { ...a, path: `statement/${name}`, link: name }
      : { ...a, path: `attachments/${name}`, link: `../attachments/${name}` };
  });
  // The longest url first: one attachment's url may begin another's.
  const byLength = [...places].sort((a, b) => b.url.length - a.url.length);
  const text = byLength.reduce((out, place) => out.replaceAll(place.url, place.link), content);
  return { places, text };
}

/**
 * The Kattis submissions folder a package's own verdict word means, in `version` (null: none says the same):
 * FPS's solutions and Hydro's std/ must be accepted; Polygon's tags as their rules read (package-verification).
 */
export function submissionFolder(expected: string, version: KattisVersion): string | null {
  const folders: Record<string, string> = {
    solution: "accepted",
    std: "accepted",
    main: "accepted",
    accepted: "accepted",
    "wrong-answer": "wrong_answer",
    "presentation-error": "wrong_answer",
    "time-limit-exceeded": "time_limit_exceeded",
    failed: "run_time_error",
    "memory-limit-exceeded": "run_time_error",
    ...(version === "legacy" ? {} : { rejected: "rejected" }),
  };
  return folders[expected] ?? null;
}

/**
 * A Markdown statement as legacy's LaTeX (legacy statements are LaTeX only): \problemname, headings as
 * sections, code blocks verbatim, images by \includegraphics, mathematics as written, other text escaped.
 */
export function markdownAsLatex(markdown: string, name: string): string {
  const lines = [`\\problemname{${escapeLatex(name)}}`, ""];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      lines.push(fenced ? "\\end{verbatim}" : "\\begin{verbatim}");
      fenced = !fenced;
    } else if (fenced) lines.push(line);
    else {
      const heading = /^#{1,6}\s+(.*)$/.exec(line);
      lines.push(heading ? `\\section*{${inlineLatex(heading[1])}}` : inlineLatex(line));
    }
  }
  if (fenced) lines.push("\\end{verbatim}");
  return `${lines.join("\n").trimEnd()}\n`;
}

/** A Markdown image or link: its text, and its target bare or in `<…>` (which may hold spaces), a title after. */
const TARGET = String.raw`\(\s*(?:<[^>\n]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)`;
const INLINE = new RegExp(`(${String.raw`\$[^$]+\$`}|\`[^\`]+\`|${String.raw`!?\[[^\]]*\]`}${TARGET})`);
const LINK = /^(!?)\[([^\]]*)\]\(\s*(?:<([^>\n]*)>|([^)\s]+))/;
/** A URL as \href reads it: its own escapes for # and %, spaces, braces and backslashes percent-encoded. */
const hrefTarget = (url: string) => url.replace(/[\\{} ]/g, encodeURIComponent).replace(/[#%]/g, "\\$&");

/** A line's images, links, inline code and mathematics kept, the rest escaped. */
function inlineLatex(line: string): string {
  return line
    .split(INLINE)
    .map((part, i) => {
      if (i % 2 === 0) return escapeLatex(part);
      if (part.startsWith("$")) return part;
      if (part.startsWith("`")) return `\\texttt{${escapeLatex(part.slice(1, -1))}}`;
      const [, image, text, bracketed, bare] = LINK.exec(part) ?? [];
      // The target without Markdown's angle brackets: `<__1.png>` is the file __1.png, not a name LaTeX can load.
      const target = bracketed ?? bare ?? "";
      if (image) return `\\includegraphics{${target}}`;
      return `\\href{${hrefTarget(target)}}{${inlineLatex(text)}}`;
    })
    .join("");
}

const escapeLatex = (text: string) =>
  text
    .replace(/\\/g, "\\textbackslash{}")
    .replace(/([#$%&_{}])/g, "\\$1")
    .replace(/~/g, "\\textasciitilde{}")
    .replace(/\^/g, "\\textasciicircum{}")
    .replace(/\\textbackslash\\\{\\\}/g, "\\textbackslash{}");
