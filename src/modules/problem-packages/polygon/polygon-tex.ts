import { latexText } from "../kattis/kattis-statement";

/**
 * A Polygon statement written whole in `statements/<language>/problem.tex` (olymp.sty, what Polygon builds its
 * PDF from): `\begin{problem}{title}{input}{output}{time}{memory}`, the legend, then `\InputFile`, `\OutputFile`,
 * `\Interaction`, `\Scoring`, `\Examples` (each `\exmp{input}{output}`) and `\Note`. As Markdown with the
 * sections of a statement-sections/ package, the examples as code blocks, formulas kept as `$…$`.
 */
const MARKERS: [command: string, heading: string][] = [
  ["InputFile", "Input"],
  ["OutputFile", "Output"],
  ["Interaction", "Interaction"],
  ["Scoring", "Scoring"],
  ["Examples", "Examples"],
  ["Example", "Examples"],
  ["Note", "Notes"],
  ["Notes", "Notes"],
];

export function polygonTex(source: string, image: (name: string) => string = (name) => name) {
  const begin = /\\begin\{problem\}\{([^}]*)\}(\{[^}]*\}){0,4}/.exec(source);
  const title = begin ? latexText(begin[1]) : "";
  const start = begin ? begin.index + begin[0].length : 0;
  const end = source.indexOf("\\end{problem}", start);
  const body = source.slice(start, end < 0 ? undefined : end);
  // Each section from its marker to the next one; what comes before the first is the legend.
  const pattern = new RegExp(`\\\\(${MARKERS.map(([command]) => command).join("|")})\\b`, "g");
  const found = [...body.matchAll(pattern)];
  const parts: string[] = [];
  const legend = latexText(body.slice(0, found[0]?.index ?? body.length), image);
  if (legend) parts.push(legend);
  for (const [i, match] of found.entries()) {
    const heading = MARKERS.find(([command]) => command === match[1])![1];
    const text = body.slice(match.index! + match[0].length, found[i + 1]?.index ?? body.length);
    const section = heading === "Examples" ? examples(text) : latexText(text, image);
    if (section) parts.push(`## ${heading}\n\n${section}`);
  }
  return { title, content: parts.join("\n\n") };
}

/** `\exmp{input}{output}` pairs (or `\exmpfile{in}{out}`: named files, said by name) as code blocks. */
function examples(text: string): string {
  const blocks: string[] = [];
  for (const match of text.matchAll(/\\exmp\{([\s\S]*?)\}%?\s*\{([\s\S]*?)\}%?/g)) {
    blocks.push(`Input:\n\n\`\`\`\n${match[1].trim()}\n\`\`\`\n\nOutput:\n\n\`\`\`\n${match[2].trim()}\n\`\`\``);
  }
  for (const match of text.matchAll(/\\exmpfile\{([^}]*)\}\{([^}]*)\}/g))
    blocks.push(`Input: \`${match[1]}\`, output: \`${match[2]}\` (files of the package)`);
  return blocks.join("\n\n");
}
