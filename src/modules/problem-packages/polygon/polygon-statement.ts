import { latexText } from "../kattis/kattis-statement";
import { polygonTex } from "./polygon-tex";
import { text } from "../model/package-model";
import type { PackageAttachment, PackageStatement } from "../model/package-model";

/**
 * A Polygon package's statement (docs/problem-packages.md "Statements and attachments"): problem.xml's
 * `<names>` give the title per language (english, russian, …), and `statement-sections/<language>/` holds the
 * statement's LaTeX sections (legend, input, output, interaction, scoring, notes) and its images. The
 * problem shows the title's language (English where given) as text; the other languages stay among the files.
 * A package without statement-sections/ has its statement whole in `statements/<language>/` (problem.tex, or
 * problem.html); the PDF Polygon built (`statements/.pdf/<language>/problem.pdf`) is kept as an attachment.
 */

const SECTIONS: [file: string, heading: string | null][] = [
  ["legend.tex", null],
  ["input.tex", "Input"],
  ["output.tex", "Output"],
  ["interaction.tex", "Interaction"],
  ["scoring.tex", "Scoring"],
  ["notes.tex", "Notes"],
];

export interface PolygonStatement {
  title: string;
  content: string;
  statements: PackageStatement[];
  attachments: PackageAttachment[];
}

export function polygonStatement(
  files: Map<string, Uint8Array>,
  names: Record<string, unknown>[],
  notes: string[],
): PolygonStatement {
  const titles = new Map(names.map((n) => [String(n.language ?? ""), String(n.value ?? "")]));
  const folders = [
    ...new Set(
      [...files.keys()].flatMap((path) => {
        const match = /^statement-sections\/([^/]+)\//.exec(path);
        return match ? [match[1]] : [];
      }),
    ),
  ].sort();
  const language = titles.has("english") ? "english" : ([...titles.keys()][0] ?? folders[0] ?? "english");
  const shown = folders.includes(language) ? language : folders.includes("english") ? "english" : folders[0];
  const statements = folders.map((folder) => ({ path: `statement-sections/${folder}/`, language: folder }));
  if (shown !== undefined && shown !== language)
    notes.push(`no statement in ${language}, the title's language: the problem shows ${shown}`);
  for (const other of folders.filter((f) => f !== shown))
    notes.push(`statement-sections/${other}/ kept among the files (not shown)`);
  if (shown === undefined) return wholeStatement(files, titles, language, notes);
  const dir = `statement-sections/${shown}/`;
  const attachments = [...files.keys()]
    .filter((p) => p.startsWith(dir) && /\.(png|jpe?g|gif|svg)$/i.test(p))
    .sort()
    .map((path) => ({ path, name: path.slice(dir.length) }));
  const parts = SECTIONS.flatMap(([file, heading]) => {
    const source = text(files.get(`${dir}${file}`)).trim();
    if (!source) return [];
    const body = latexText(source, (image) => image);
    return [heading ? `## ${heading}\n\n${body}` : body];
  });
  notes.push(`${dir}: LaTeX kept as its text (commands dropped; tables and formulas are not rendered)`);
  return {
    title: titles.get(shown) ?? titles.get(language) ?? "",
    content: parts.join("\n\n"),
    statements,
    attachments: [...attachments, ...pdfOf(files, shown)],
  };
}

/** The PDF Polygon built for a language (`statements/.pdf/<language>/problem.pdf`), kept as an attachment. */
function pdfOf(files: Map<string, Uint8Array>, language: string): { path: string; name: string }[] {
  const path = [`statements/.pdf/${language}/problem.pdf`, `statements/${language}/problem.pdf`].find((p) =>
    files.has(p),
  );
  return path ? [{ path, name: "problem.pdf" }] : [];
}

/**
 * Without statement-sections/, the statement Polygon keeps whole: `statements/<language>/problem.tex` (its
 * sections as Markdown), else that folder's `problem.html` as its text; its images and the PDF as attachments.
 */
function wholeStatement(
  files: Map<string, Uint8Array>,
  titles: Map<string, string>,
  language: string,
  notes: string[],
): PolygonStatement {
  const folders = [
    ...new Set(
      [...files.keys()].flatMap((path) => {
        const match = /^statements\/([^./][^/]*)\/problem\.(tex|html)$/.exec(path);
        return match ? [match[1]] : [];
      }),
    ),
  ].sort();
  const shown = folders.includes(language) ? language : folders.includes("english") ? "english" : folders[0];
  const statements = folders.map((folder) => ({ path: `statements/${folder}/`, language: folder }));
  if (shown === undefined) {
    notes.push("the package has no statement-sections/ and no statements/<language>/: the problem has no statement");
    return { title: titles.get(language) ?? "", content: "", statements, attachments: [] };
  }
  const dir = `statements/${shown}/`;
  const images = [...files.keys()]
    .filter((p) => p.startsWith(dir) && /\.(png|jpe?g|gif|svg)$/i.test(p))
    .sort()
    .map((path) => ({ path, name: path.slice(dir.length) }));
  const tex = text(files.get(`${dir}problem.tex`));
  const made = tex.trim() ? polygonTex(tex) : { title: "", content: htmlText(text(files.get(`${dir}problem.html`))) };
  notes.push(`${dir}problem.${tex.trim() ? "tex" : "html"}: the statement, as its text (no statement-sections/)`);
  for (const other of folders.filter((f) => f !== shown)) notes.push(`statements/${other}/ kept among the files`);
  return {
    title: titles.get(shown) ?? titles.get(language) ?? made.title,
    content: made.content,
    statements,
    attachments: [...images, ...pdfOf(files, shown)],
  };
}

/**
 * An HTML statement's text as Markdown: scripts and styles gone, block ends as line breaks, tags dropped. `&lt;`,
 * `&gt;` and `&amp;` stay entities (Markdown shows them as the characters; decoded, an escaped `<script>` would
 * become markup).
 */
function htmlText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<\/(p|div|h[1-6]|li|pre|tr)>|<br\s*\/?>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
