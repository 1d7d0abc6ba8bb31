import { parse as parseYaml } from "yaml";
import type { CheckerInput } from "../../../core/config-model/config-schema";
import { kattisInputValidators } from "./kattis-input-validators";
import { kattisStatement } from "./kattis-statement";
import { kattisSubmissions } from "./kattis-submissions";
import { validatorArgs } from "./kattis-validator-args";
import { LANGUAGES } from "../model/package-config";
import { programOf, refuse, text } from "../model/package-model";
import type { PackageCase, PackageProblem } from "../model/package-model";

/**
 * The Kattis problem package format, the legacy layout and the 2023-07 one (docs/running-a-course.md "Problem
 * packages"): problem.yaml, .timelimit, data/sample and data/secret (groups as subdirectories, with testdata.yaml),
 * output_validators/ (legacy) or output_validator/ (2023-07), input_validators/, problem_statement/ or statement/,
 * and submissions/<verdict>/.
 */

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
  const version = String(yaml.problem_format_version ?? "legacy");
  const custom = customValidator(files, interactive, version);
  const flags = validatorArgs((path) => yamlFile(files, path), yaml, cases, notes);
  if (interactive && !custom) throw refuse("an interactive problem needs its output validator (output_validators/)");
  const protocol = { protocol: "kattis" as const, flags };
  const statement = kattisStatement(files, yaml.name, notes);
  return {
    format: "kattis",
    title: statement.title || "Untitled",
    content: statement.content,
    statements: statement.statements,
    attachments: statement.attachments,
    timeMs: timeLimitOf(files, yaml, notes),
    memoryMb: typeof limits.memory === "number" ? limits.memory : 2048,
    cases,
    compare: custom ? null : defaultValidation(flags),
    checker: custom && !interactive ? { ...custom, ...protocol } : null,
    interactor: custom && interactive ? { ...custom, ...protocol } : null,
    inputValidators: kattisInputValidators(files, notes),
    fileInput: null,
    fileOutput: null,
    ...(scoring ? groupsOf(files, cases, notes) : { groupScores: new Map() }),
    submissions: kattisSubmissions(files, cases, version.startsWith("legacy"), LANGUAGES, notes),
    files,
    notes,
  };
}

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

/** output_validators/<name>/ (legacy) or output_validator/ (2023-07, 2025-09): a build of its sources. */
function customValidator(
  files: Map<string, Uint8Array>,
  interactive: boolean,
  version: string,
): Omit<CheckerInput, "protocol"> | null {
  const sources = [...files.keys()].filter((p) => /^output_validators?\//.test(p)).sort();
  if (sources.length === 0) return null;
  const dirs = new Set(sources.map((p) => validatorFolder(p, sources, version)));
  if (dirs.size > 1) throw refuse(`more than one output validator (${[...dirs].join(", ")})`);
  return programOf(sources, interactive ? "interactor" : "validator", [...dirs][0]);
}

/**
 * The folder of the output validator program that `path` belongs to, among the package's `paths`: legacy's
 * output_validators/<name>; in 2023-07-draft, where problemtools' release takes each entry of output_validator/
 * as a program of its own (a file, or a folder of several), output_validator/<name> when that folder is the only
 * entry (how our export writes a validator there); else output_validator, the program itself (2025-09; and a
 * 2023-07-draft one of loose files, as that draft's specification reads). A 2023-07-draft output_validator/ with
 * a folder beside other entries holds several programs (refused by the caller).
 */
export function validatorFolder(path: string, paths: string[], version: string): string {
  const parts = path.split("/");
  if (parts[0] === "output_validators") return parts.slice(0, 2).join("/");
  if (!version.startsWith("2023-07")) return "output_validator";
  const inside = paths.filter((p) => p.startsWith("output_validator/")).map((p) => p.split("/"));
  const entries = new Set(inside.map((p) => p[1]));
  const folders = inside.some((p) => p.length > 2);
  return folders && (entries.size === 1 || parts.length > 2) ? parts.slice(0, 2).join("/") : "output_validator";
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

/** A YAML mapping of the package ({} when the file is absent); anything else is refused, naming the file. */
function yamlFile(files: Map<string, Uint8Array>, path: string): Yaml {
  const bytes = files.get(path);
  if (!bytes) return {};
  let yaml: unknown;
  try {
    yaml = parseYaml(text(bytes)) ?? {};
  } catch (error) {
    throw refuse(`${path} is not valid YAML (${error instanceof Error ? error.message.split("\n")[0] : error})`);
  }
  if (typeof yaml !== "object" || Array.isArray(yaml)) throw refuse(`${path} is not a mapping`);
  return yaml as Yaml;
}

/**
 * Each group's score (test_group.yaml's max_score, or the older testdata.yaml's accept_score or its range's
 * top; else an equal share of 100) and the groups it requires (`require_pass`).
 */
function groupsOf(files: Map<string, Uint8Array>, cases: PackageCase[], notes: string[]) {
  const groups = [...new Set(cases.map((c) => c.group).filter((g): g is string => g !== null))];
  const groupScores = new Map<string, number>();
  const groupDependsOn = new Map<string, string[]>();
  for (const group of groups) {
    const dir = `data/secret/${group}/`;
    const yaml = { ...yamlFile(files, `${dir}test_group.yaml`), ...yamlFile(files, `${dir}testdata.yaml`) };
    const range = typeof yaml.range === "string" ? Number(yaml.range.split(/\s+/)[1]) : Number.NaN;
    const given = yaml.accept_score ?? (typeof yaml.max_score === "number" ? yaml.max_score : undefined);
    const score = Number(given ?? (Number.isFinite(range) ? range : Math.floor(100 / groups.length)));
    groupScores.set(group, Math.max(0, Math.round(score)));
    const required = [yaml.require_pass ?? []].flat().map(String);
    const known = required.flatMap((name) => {
      const other = name.replace(/^secret\//, "");
      return groups.includes(other) && other !== group ? [other] : [];
    });
    if (known.length < required.length)
      notes.push(`${dir}: require_pass ${JSON.stringify(required)}: only other secret groups are required here`);
    if (known.length > 0) groupDependsOn.set(group, known);
  }
  return { groupScores, groupDependsOn };
}
