import { latexText } from "../kattis/kattis-statement";
import { text } from "../model/package-model";
import type { PackageAttachment, PackageStatement } from "../model/package-model";

/**
 * A Polygon package's statement (docs/problem-packages.md "Statements and attachments"): problem.xml's
 * `<names>` give the title per language (english, russian, …), and `statement-sections/<language>/` holds the
 * statement's LaTeX sections (legend, input, output, interaction, scoring, notes) and its images. The
 * problem shows the title's language (English where given) as text; the other languages stay among the files.
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
  if (shown === undefined) {
    notes.push("the package has no statement-sections/: the problem has no statement");
    return { title: titles.get(language) ?? "", content: "", statements, attachments: [] };
  }
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
    attachments,
  };
}
