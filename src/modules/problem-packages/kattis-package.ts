import { parse as parseYaml } from "yaml";
import type { CheckerInput } from "../../core/config-model/config-schema";
import { programOf, refuse, text } from "./package-model";
import type { PackageCase, PackageProblem, PackageSubmission } from "./package-model";

/**
 * The Kattis problem package format, the legacy layout and the 2023-07 one (docs/running-a-course.md "Problem
 * packages"): problem.yaml, .timelimit, data/sample and data/secret (groups as subdirectories, with testdata.yaml),
 * output_validators/ (legacy) or output_validator/ (2023-07), problem_statement/ or statement/, and
 * submissions/<verdict>/.
 */

const VERDICTS: Record<string, string> = {
  accepted: "accepted",
  wrong_answer: "wrong_answer",
  time_limit_exceeded: "time_limit_exceeded",
  run_time_error: "runtime_error",
};

/** Whether the files look like a Kattis package. */
export const isKattis = (files: Map<string, Uint8Array>) =>
  files.has("problem.yaml") && [...files.keys()].some((path) => path.startsWith("data/"));

type Yaml = Record<string, unknown>;

export function readKattis(files: Map<string, Uint8Array>): PackageProblem {
  let yaml: Yaml;
  try {
    yaml = (parseYaml(text(files.get("problem.yaml"))) ?? {}) as Yaml;
  } catch (error) {
    throw refuse(`problem.yaml is not valid YAML (${error instanceof Error ? error.message.split("\n")[0] : error})`);
  }
  if (typeof yaml !== "object" || Array.isArray(yaml)) throw refuse("problem.yaml is not a mapping");
  const notes: string[] = [];
  const types = [yaml.type].flat().filter((x): x is string => typeof x === "string");
  const validation = typeof yaml.validation === "string" ? yaml.validation : "default";
  const interactive = types.includes("interactive") || /\binteractive\b/.test(validation);
  const scoring = types.includes("scoring") || /\bscore\b/.test(validation);
  if (types.some((t) => !["pass-fail", "scoring", "interactive"].includes(t)))
    throw refuse(`problem.yaml: type ${JSON.stringify(yaml.type)} is not supported (pass-fail, scoring, interactive)`);
  if (types.includes("multi-pass")) throw refuse("problem.yaml: multi-pass problems are not supported");
  const limits = (yaml.limits ?? {}) as Yaml;
  const generated = [...files.keys()].some((path) => path.startsWith("generators/"));
  const cases = casesOf(files);
  if (cases.length === 0)
    throw refuse(
      generated ? "generators/ is there but data/ holds no test: run the generators first" : "data/ holds no .in file",
    );
  const custom = customValidator(files, interactive);
  const flags = String(yaml.validator_flags ?? (yaml.validation as Yaml | undefined)?.flags ?? "")
    .split(/\s+/)
    .filter(Boolean);
  if (interactive && !custom) throw refuse("an interactive problem needs its output validator (output_validators/)");
  const protocol = { protocol: "kattis" as const, flags };
  return {
    format: "kattis",
    title: titleOf(yaml.name) || statementTitle(files) || "Untitled",
    content: statementOf(files, notes),
    timeMs: timeLimitOf(files, yaml, notes),
    memoryMb: typeof limits.memory === "number" ? limits.memory : 2048,
    cases,
    compare: custom ? null : defaultValidation(flags),
    checker: custom && !interactive ? { ...custom, ...protocol } : null,
    interactor: custom && interactive ? { ...custom, ...protocol } : null,
    fileInput: null,
    fileOutput: null,
    groupScores: scoring ? groupScores(files, cases) : new Map(),
    submissions: submissionsOf(files),
    files,
    notes,
  };
}

const titleOf = (name: unknown): string | null =>
  typeof name === "string" ? name : name && typeof name === "object" ? (Object.values(name)[0] as string) : null;

/** data/sample then data/secret, each in lexicographic order, groups as subdirectories of secret. */
function casesOf(files: Map<string, Uint8Array>): PackageCase[] {
  const cases: PackageCase[] = [];
  for (const [dir, category] of [
    ["data/sample/", "pretest"],
    ["data/secret/", "secret"],
  ] as const) {
    const inputs = [...files.keys()].filter((path) => path.startsWith(dir) && path.endsWith(".in")).sort();
    for (const input of inputs) {
      const answer = `${input.slice(0, -3)}.ans`;
      const rest = input.slice(dir.length).split("/");
      cases.push({
        input,
        answer: files.has(answer) ? answer : null,
        category,
        group: category === "secret" && rest.length > 1 ? rest[0] : null,
      });
    }
  }
  return cases;
}

/** output_validators/<name>/ (legacy) or output_validator/ (2023-07): a build of its sources. */
function customValidator(files: Map<string, Uint8Array>, interactive: boolean): Omit<CheckerInput, "protocol"> | null {
  const sources = [...files.keys()].filter((p) => /^output_validators?\//.test(p)).sort();
  if (sources.length === 0) return null;
  const dirs = new Set(
    sources.map((p) =>
      p
        .split("/")
        .slice(0, p.startsWith("output_validators/") ? 2 : 1)
        .join("/"),
    ),
  );
  if (dirs.size > 1) throw refuse(`more than one output validator (${[...dirs].join(", ")})`);
  return programOf(sources, interactive ? "interactor" : "validator", [...dirs][0]);
}

/** The default validator: tokens, case-insensitive unless case_sensitive; numbers within float_tolerance. */
function defaultValidation(flags: string[]): PackageProblem["compare"] {
  const value = (name: string) => {
    const at = flags.indexOf(name);
    return at >= 0 ? Number(flags[at + 1]) : null;
  };
  const epsilon = value("float_tolerance") ?? value("float_absolute_tolerance") ?? value("float_relative_tolerance");
  if (epsilon !== null && epsilon > 0 && epsilon <= 1) return { compare: "float", epsilon };
  return { compare: flags.includes("case_sensitive") ? "whitespace" : "tokens-icase" };
}

function timeLimitOf(files: Map<string, Uint8Array>, yaml: Yaml, notes: string[]): number {
  const limits = (yaml.limits ?? {}) as Yaml;
  const seconds = Number(text(files.get(".timelimit")).trim() || limits.time_limit || Number.NaN);
  if (seconds > 0) return Math.round(seconds * 1000);
  notes.push("no .timelimit and no limits.time_limit: 1 s");
  return 1000;
}

/** Each group's score: testdata.yaml's accept_score (or its score range's top), else an equal share of 100. */
function groupScores(files: Map<string, Uint8Array>, cases: PackageCase[]): Map<string, number> {
  const groups = [...new Set(cases.map((c) => c.group).filter((g): g is string => g !== null))];
  const scores = new Map<string, number>();
  for (const group of groups) {
    const yaml = (parseYaml(text(files.get(`data/secret/${group}/testdata.yaml`))) ?? {}) as Yaml;
    const range = typeof yaml.range === "string" ? Number(yaml.range.split(/\s+/)[1]) : Number.NaN;
    const score = Number(yaml.accept_score ?? (Number.isFinite(range) ? range : Math.floor(100 / groups.length)));
    scores.set(group, Math.max(0, Math.round(score)));
  }
  return scores;
}

function submissionsOf(files: Map<string, Uint8Array>): PackageSubmission[] {
  return [...files.keys()]
    .filter((p) => p.startsWith("submissions/"))
    .flatMap((path) => {
      const expected = VERDICTS[path.split("/")[1]];
      return expected ? [{ path, expected }] : [];
    });
}

/** problem_statement/ (legacy) or statement/ (2023-07): Markdown as it is, LaTeX as its text. */
function statementOf(files: Map<string, Uint8Array>, notes: string[]): string {
  const paths = [...files.keys()].filter((p) => /^(problem_)?statement\//.test(p)).sort();
  const markdown = paths.find((p) => /problem(\.en)?\.md$/.test(p)) ?? paths.find((p) => p.endsWith(".md"));
  if (markdown) return text(files.get(markdown));
  const latex = paths.find((p) => /problem(\.en)?\.tex$/.test(p)) ?? paths.find((p) => p.endsWith(".tex"));
  if (!latex) return "";
  notes.push(`${latex}: LaTeX kept as its text (commands dropped; figures and tables are not rendered)`);
  return latexText(text(files.get(latex)));
}

function statementTitle(files: Map<string, Uint8Array>): string | null {
  for (const [path, bytes] of files)
    if (/^(problem_)?statement\/.*\.tex$/.test(path)) {
      const match = /\\problemname\{([^}]*)\}/.exec(text(bytes));
      if (match) return match[1].trim();
    }
  return null;
}

/** A LaTeX statement's text: \problemname as a heading, sections as headings, other commands dropped. */
export function latexText(source: string): string {
  return source
    .replace(/%.*$/gm, "")
    .replace(/\\problemname\{([^}]*)\}/g, "# $1\n")
    .replace(/\\(sub)?section\*?\{([^}]*)\}/g, (_, sub, title) => `\n${sub ? "###" : "##"} ${title}\n`)
    .replace(/\\(textbf|emph|textit|texttt)\{([^}]*)\}/g, "$2")
    .replace(/\\(begin|end)\{[^}]*\}/g, "")
    .replace(/\\[a-zA-Z]+\*?(\[[^\]]*\])?/g, "")
    .replace(/[{}]/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
