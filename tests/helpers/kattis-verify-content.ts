import { parse } from "yaml";

/**
 * What verifyproblem finds in a package's contents rather than its layout (kattis-verify.ts runs these): a LaTeX
 * statement's images, test data's line ends, and where the time limit is said. Each rule is one that
 * problemtools v1.20260620 found broken in an export while kattis-verify.ts passed it (docs/problem-packages.md
 * "Checked with problemtools").
 */

type Files = Map<string, Uint8Array>;
export type KattisVersion = "legacy" | "2023-07-draft" | "2025-09";

/** What the caller knows of the problem that the package must say. */
export interface Expected {
  /** The problem's time limit in seconds, or null: the package must say none (problemtools then sets one). */
  timeLimit?: number | null;
}

/** The extensions LaTeX's graphicx tries for a name without one, and the kinds it loads. */
const GRAPHICS = [".pdf", ".png", ".jpg", ".jpeg"];

export function contentRules(files: Files, version: KattisVersion, expected: Expected, findings: string[]) {
  for (const [path, bytes] of files) {
    if (/^(problem_)?statement\/problem(\.[a-zA-Z-]+)?\.tex$/.test(path))
      latexImageRules(files, path, new TextDecoder().decode(bytes), findings);
    if (/^data\/.+\.(in|ans)$/.test(path)) lineEndRules(path, bytes, findings);
  }
  if (expected.timeLimit !== undefined) timeLimitRule(files, version, expected.timeLimit, findings);
}

/**
 * Each \includegraphics names a file beside the statement, as it is or with an extension graphicx adds:
 * problem2pdf stops at any other ("Unknown graphics extension: .png>" for Markdown's `<__1.png>`).
 */
function latexImageRules(files: Files, path: string, latex: string, findings: string[]) {
  const folder = path.slice(0, path.lastIndexOf("/") + 1);
  for (const [, target] of latex.matchAll(/\\includegraphics\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}/g)) {
    const name = `${folder}${target.trim()}`;
    const known = GRAPHICS.some((extension) => name.toLowerCase().endsWith(extension));
    const found = known ? files.has(name) : GRAPHICS.some((extension) => files.has(`${name}${extension}`));
    if (!found) findings.push(`${path}: \\includegraphics{${target}} is no image beside it`);
  }
}

/** verifyproblem's check_newlines: UTF-8 text data should end with '\n' and hold no '\r'. */
function lineEndRules(path: string, bytes: Uint8Array, findings: string[]) {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return;
  }
  if (text.includes("\r")) findings.push(`warning: ${path} has non-standard line breaks`);
  if (text.length > 0 && !text.endsWith("\n")) findings.push(`warning: ${path} does not end with a newline`);
}

/**
 * The time limit where the version keeps it: legacy's `.timelimit` (its problem.yaml has no key for one;
 * DOMjudge reads the file), the others' limits.time_limit.
 */
function timeLimitRule(files: Files, version: KattisVersion, wanted: number | null, findings: string[]) {
  const said =
    version === "legacy"
      ? files.has(".timelimit")
        ? Number(new TextDecoder().decode(files.get(".timelimit")).trim())
        : null
      : (parse(new TextDecoder().decode(files.get("problem.yaml")))?.limits?.time_limit ?? null);
  const where = version === "legacy" ? ".timelimit" : "limits.time_limit";
  if (said !== wanted) findings.push(`time limit: ${where} says ${said ?? "none"}, not ${wanted ?? "none"}`);
}
