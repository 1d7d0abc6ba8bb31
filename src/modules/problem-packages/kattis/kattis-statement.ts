import { text } from "../model/package-model";
import type { PackageAttachment, PackageStatement } from "../model/package-model";

/**
 * A Kattis package's statements and the files shown beside them (docs/problem-packages.md "Statements and
 * attachments"): `statement/` (2025-09) or `problem_statement/` (legacy) holds `problem.<language>.<md|tex|pdf>`
 * (legacy: `problem.tex` is English) and the images they use; `attachments/` holds files for solvers. The
 * problem shows the statement in its title's language (English when `name` is a plain string), Markdown over
 * LaTeX; the others stay among the version's files under their own names.
 */

const STATEMENT = /^(problem_)?statement\/problem(?:\.([A-Za-z]{2,3}(?:-[A-Za-z0-9]+)?))?\.(md|tex|pdf)$/;
const KIND_ORDER = ["md", "tex", "pdf"];

export interface KattisStatement {
  title: string;
  content: string;
  statements: PackageStatement[];
  attachments: PackageAttachment[];
}

export function kattisStatement(files: Map<string, Uint8Array>, name: unknown, notes: string[]): KattisStatement {
  const found = [...files.keys()].flatMap((path) => {
    const match = STATEMENT.exec(path);
    return match ? [{ path, language: match[2] ?? "en", kind: match[3] }] : [];
  });
  const names: Record<string, string> =
    typeof name === "string"
      ? { en: name }
      : name && typeof name === "object"
        ? Object.fromEntries(Object.entries(name).filter((e): e is [string, string] => typeof e[1] === "string"))
        : {};
  const languages = [...new Set([...Object.keys(names), ...found.map((s) => s.language)])];
  const language = languages.includes("en") ? "en" : (Object.keys(names)[0] ?? languages.sort()[0] ?? "en");
  const rank = (s: (typeof found)[number]) =>
    (s.language === language ? 0 : s.language === "en" ? 1 : 2) * 10 + KIND_ORDER.indexOf(s.kind);
  found.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  const shown = found[0];
  const statements = found.map(({ path, language }) => ({ path, language }));
  const attachments = attachmentsOf(files);
  let content = "";
  if (shown && shown.language !== language)
    notes.push(`no statement in ${language}, the title's language: the problem shows ${shown.path}`);
  if (shown?.kind === "md") content = text(files.get(shown.path));
  else if (shown?.kind === "tex") {
    notes.push(`${shown.path}: LaTeX kept as its text (commands dropped; tables and formulas are not rendered)`);
    content = latexText(text(files.get(shown.path)), (image) => imageName(image, attachments));
  } else if (shown) notes.push(`${shown.path}: a PDF statement is not shown as text; it is served as an attachment`);
  if (shown?.kind === "pdf") attachments.push({ path: shown.path, name: shown.path.split("/").slice(1).join("/") });
  for (const other of found.slice(1)) notes.push(`${other.path} kept among the files (not shown)`);
  const title = names[shown?.language ?? language] ?? names[language] ?? (shown && texTitle(files, shown.path));
  return { title: title || Object.values(names)[0] || "", content, statements, attachments };
}

/**
 * Files shown to solvers: the statement folder's other files by their path below it (how the statement links
 * them), and attachments/ by its own path.
 */
function attachmentsOf(files: Map<string, Uint8Array>): PackageAttachment[] {
  return [...files.keys()].sort().flatMap((path) => {
    if (STATEMENT.test(path)) return [];
    const statement = /^(problem_)?statement\/(.+)$/.exec(path);
    if (statement) return [{ path, name: statement[2] }];
    return path.startsWith("attachments/") ? [{ path, name: path }] : [];
  });
}

/** `\includegraphics{kattis}` names an image without its extension: the statement folder's file it means. */
function imageName(image: string, attachments: PackageAttachment[]): string {
  const exact = attachments.find((a) => a.name === image);
  if (exact) return image;
  return (
    attachments.find((a) => /\.(png|jpe?g|svg)$/i.test(a.name) && a.name.replace(/\.[^.]+$/, "") === image)?.name ??
    image
  );
}

function texTitle(files: Map<string, Uint8Array>, path: string): string | null {
  const match = /\\problemname\{([^}]*)\}/.exec(text(files.get(path)));
  return match ? match[1].trim() : null;
}

/**
 * A LaTeX statement's text: \problemname as a heading, sections as headings, images (`\includegraphics`,
 * Kattis's `\illustration`) as Markdown images, other commands dropped.
 */
export function latexText(source: string, image: (name: string) => string = (name) => name): string {
  return source
    .replace(/(^|[^\\])%.*$/gm, "$1")
    .replace(/\\problemname\{([^}]*)\}/g, "# $1\n")
    .replace(/\\(sub)?section\*?\{([^}]*)\}/g, (_, sub, title) => `\n${sub ? "###" : "##"} ${title}\n`)
    .replace(
      /\\illustration\{[^}]*\}\{([^}]*)\}\{([^}]*)\}/g,
      (_, file, caption) => `\n![${caption}](${image(file)})\n`,
    )
    .replace(/\\includegraphics(\[[^\]]*\])?\{([^}]*)\}/g, (_, __, file) => `![](${image(file)})`)
    .replace(/\\(textbf|emph|textit|texttt)\{([^}]*)\}/g, "$2")
    .replace(/\\(begin|end)\{[^}]*\}/g, "")
    .replace(/\\[a-zA-Z]+\*?(\[[^\]]*\])?/g, "")
    .replace(/(!\[[^\]]*\]\([^)]*\))|[{}]/g, (_, link) => link ?? "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
