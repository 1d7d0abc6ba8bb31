import { posix } from "node:path";
import { Document, parse, parseDocument } from "yaml";

/**
 * The files of an exported Kattis package besides its cases (kattis-export.ts): the tree's folders at their
 * 2025-09 names, problem.yaml started from the package's own with its legacy keys said the current way, and
 * testdata.yaml and test_group.yaml changed only where the config says something else than import read there.
 */

type Yaml = Record<string, unknown>;

/** What import assumes when a package says nothing (kattis-package.ts): a time limit of 1 s, 2048 MiB. */
const IMPORT_TIME_MS = 1000;
const IMPORT_MEMORY_MB = 2048;

/** Folders that go out as they are, and the legacy names of two (their files go out unless the current has one). */
const FOLDERS = [
  ...["statement", "attachments", "submissions", "input_validators", "solution", "include", "generators"],
  ...["input_visualizer", "output_visualizer", "data/invalid_input", "data/invalid_output", "data/valid_output"],
];
const RENAMED: Record<string, string> = { problem_statement: "statement", input_format_validators: "input_validators" };

/** Where a tree file outside the cases' folders goes in the package; null: it does not. */
export function folderPath(path: string, tree: Map<string, unknown>): string | null {
  const [top] = path.split("/");
  const renamed = RENAMED[top] && `${RENAMED[top]}${path.slice(top.length)}`;
  if (renamed) return tree.has(renamed) ? null : statementPath(renamed, tree);
  return FOLDERS.some((folder) => path.startsWith(`${folder}/`)) ? statementPath(path, tree) : null;
}

/**
 * A validator's file under output_validator/: below its package folder (validatorFolder: legacy's
 * output_validators/<name>, 2023-07-draft's output_validator/<name>, or output_validator itself), else below the
 * common folder of the config's files.
 */
export function validatorPath(path: string, files: string[], folder: string | null): string {
  if (folder) return `output_validator/${path.slice(folder.length + 1)}`;
  let common = posix.dirname(files[0]);
  while (common !== "." && !files.every((file) => file.startsWith(`${common}/`))) common = posix.dirname(common);
  return `output_validator/${common === "." ? path : path.slice(common.length + 1)}`;
}

/** Legacy problem_statement/problem.tex (no language: English) as statement/problem.en.tex, unless that exists. */
function statementPath(path: string, tree: Map<string, unknown>): string {
  const match = /^statement\/problem\.(md|tex|pdf)$/.exec(path);
  const english = match && `statement/problem.en.${match[1]}`;
  return english && !tree.has(english) && !tree.has(`problem_statement/problem.en.${match[1]}`) ? english : path;
}

export function readYaml(text: string | undefined): Yaml {
  try {
    const value = parse(text ?? "");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Yaml) : {};
  } catch {
    return {};
  }
}

export interface ProblemFacts {
  id: string;
  title: string;
  scoring: boolean;
  interactive: boolean;
  /** The longest time limit and the largest memory limit of the exported cases. */
  timeMs: number;
  memoryMb: number;
  /** The legacy `.timelimit` file's text, if the package had one. */
  timelimit: string | undefined;
  /** Whether the files are a Kattis package's, with its problem.yaml (which may leave the time limit out). */
  kattisYaml: boolean;
  /** The languages of the exported statements (statement/problem.<language>.<type>). */
  languages: string[];
}

/**
 * problem.yaml's fields in 2025-09's words (kattis-export-version.ts writes them in the version asked): the
 * package's own keys, legacy ones converted, then uuid and limits set; and the name per statement language.
 */
export function problemYamlOf(source: Yaml, facts: ProblemFacts): { yaml: Yaml; names: Record<string, string> } {
  const { problem_format_version: _, name, type: _type, uuid, limits: _limits, ...rest } = currentKeys(source);
  const limits = limitsOf(source, facts);
  const yaml = { ...rest, uuid: uuid ?? facts.id, ...(limits ? { limits } : {}) };
  return { yaml, names: namesOf(name, facts.title, facts.languages) };
}

/**
 * The keys only the legacy format has, as the current one says them: `validation` is the problem's type and
 * its output_validator/, `validator_flags` the data's output_validator_args (both written by the caller),
 * `author` the credits, `source_url` the source's url, `keywords` a list; `grading` has no current form
 * (the objective is always to maximise).
 */
function currentKeys(source: Yaml): Yaml {
  const { validation: _v, validator_flags: _f, grading: _g, author, source_url: url, ...yaml } = source;
  if (typeof author === "string" && yaml.credits === undefined) {
    const authors = author
      .split(/,|\band\b/)
      .map((a) => a.trim())
      .filter(Boolean);
    yaml.credits = authors.length === 1 ? authors[0] : { authors };
  }
  if (typeof url === "string" && typeof yaml.source === "string") yaml.source = { name: yaml.source, url };
  if (typeof yaml.keywords === "string") yaml.keywords = yaml.keywords.split(/\s+/).filter(Boolean);
  return yaml;
}

/**
 * A name for each statement language (verifyproblem wants exactly those): the package's per-language name map
 * kept while the title is one of its names, a changed title replacing the name import showed (kattis-statement.ts:
 * English's, else the first); a language the map lacks, and a plain name (English's), get the title.
 */
function namesOf(source: unknown, title: string, languages: string[]): Record<string, string> {
  let names: Record<string, unknown> = {};
  if (source && typeof source === "object" && !Array.isArray(source)) {
    names = source as Record<string, unknown>;
    const shown = "en" in names ? "en" : Object.keys(names)[0];
    if (shown !== undefined && !Object.values(names).includes(title)) names = { ...names, [shown]: title };
  }
  const wanted = languages.length > 0 ? languages : ["en"];
  return Object.fromEntries(
    wanted.map((language) => {
      const name = names[language];
      return [language, typeof name === "string" && name.trim() ? name : title];
    }),
  );
}

/**
 * The package's limits, legacy time multipliers renamed. A Kattis package's time and memory limits are written
 * only when it had one (problem.yaml or `.timelimit`) or the config's differs from what import assumed without
 * one, so that a package without a time limit stays without one (problemtools then sets it from the accepted
 * submissions). Every other problem's time limit is its own (FPS's, Hydro's, Polygon's, one set here), so it is
 * always written, even when it is the 1 s import assumes.
 */
function limitsOf(source: Yaml, facts: ProblemFacts): Yaml | null {
  const {
    time_multiplier: ac,
    time_safety_margin: tle,
    ...limits
  } = (source.limits && typeof source.limits === "object" ? source.limits : {}) as Yaml;
  if (ac !== undefined || tle !== undefined)
    limits.time_multipliers = {
      ...(limits.time_multipliers as Yaml | undefined),
      ...(ac !== undefined ? { ac_to_time_limit: ac } : {}),
      ...(tle !== undefined ? { time_limit_to_tle: tle } : {}),
    };
  // As import reads it: `.timelimit` first, then limits.time_limit.
  const hadTime = !facts.kattisYaml || Number(facts.timelimit?.trim() || limits.time_limit || Number.NaN) > 0;
  if (hadTime || facts.timeMs !== IMPORT_TIME_MS) {
    limits.time_limit = facts.timeMs / 1000;
    const resolution = Number(limits.time_resolution ?? 1);
    // 2025-09: the time limit must be a whole multiple of time_resolution (1 s unless said).
    if (!multipleOf(facts.timeMs / 1000, resolution))
      limits.time_resolution = [0.1, 0.01, 0.001].find((r) => multipleOf(facts.timeMs / 1000, r));
  } else delete limits.time_limit;
  if (!facts.kattisYaml || limits.memory !== undefined || facts.memoryMb !== IMPORT_MEMORY_MB)
    limits.memory = facts.memoryMb;
  return Object.keys(limits).length > 0 ? limits : null;
}

const multipleOf = (value: number, step: number) => Math.abs(value / step - Math.round(value / step)) < 1e-9;

/**
 * A group's score as import reads it (kattis-package.ts groupScores): testdata.yaml's accept_score, else its
 * range's top; test_group.yaml's max_score (the 2025-09 key); else an equal share.
 */
function scoreIn(testdata: string | undefined, testGroup: string | undefined): number | null {
  const yaml = readYaml(testdata);
  const range = typeof yaml.range === "string" ? Number(yaml.range.trim().split(/\s+/)[1]) : Number.NaN;
  const score = Number(yaml.accept_score ?? (Number.isFinite(range) ? range : readYaml(testGroup).max_score));
  return Number.isFinite(score) ? Math.max(0, Math.round(score)) : null;
}

/**
 * The file that gives a group its score, when the config's score is not what import read from the group's
 * files: the file that had the score with only that key changed (accept_score, range's top, max_score; every
 * other key and comment kept; a range's top follows), else testdata.yaml with accept_score. Null: the files
 * stay as they are.
 */
export function groupScoreFile(
  folder: string,
  files: { testdata?: string; testGroup?: string },
  score: number,
  share: number,
): { path: string; text: string } | null {
  const had = files.testdata !== undefined || files.testGroup !== undefined;
  if (had && (scoreIn(files.testdata, files.testGroup) ?? share) === score) return null;
  if (files.testdata === undefined && files.testGroup !== undefined)
    return { path: `${folder}/test_group.yaml`, text: edited(files.testGroup, (doc) => doc.set("max_score", score)) };
  const text = edited(files.testdata ?? "", (doc) => {
    const range = doc.get("range");
    if (typeof range === "string") doc.set("range", `${range.trim().split(/\s+/)[0]} ${score}`);
    if (doc.has("accept_score") || typeof range !== "string") doc.set("accept_score", score);
  });
  return { path: `${folder}/testdata.yaml`, text };
}

/** The output validator's flags the package gave: legacy problem.yaml's, or data/secret/test_group.yaml's. */
export function givenFlags(problemYaml: Yaml, secretTestGroup: string | undefined): string[] {
  const args = problemYaml.validator_flags ?? readYaml(secretTestGroup).output_validator_args ?? [];
  return (Array.isArray(args) ? args.map(String) : String(args).split(/\s+/)).filter(Boolean);
}

/**
 * The default validator's flags: the package's own while import reads them as the config's comparison (as
 * kattis-package.ts defaultValidation does), else our comparison in Kattis's words.
 */
export function defaultFlags(given: string[], check: { compare: string; epsilon: number | null }): string[] {
  const value = (name: string) => (given.includes(name) ? Number(given[given.indexOf(name) + 1]) : null);
  const epsilon = value("float_tolerance") ?? value("float_absolute_tolerance") ?? value("float_relative_tolerance");
  const float = epsilon !== null && epsilon > 0 && epsilon <= 1;
  const compare = float ? "float" : given.includes("case_sensitive") ? "whitespace" : "tokens-icase";
  if (compare === check.compare && (float ? epsilon : null) === check.epsilon) return given;
  if (check.compare === "float") return ["float_tolerance", String(check.epsilon)];
  if (check.compare === "exact") return ["case_sensitive", "space_change_sensitive"];
  return check.compare === "whitespace" ? ["case_sensitive"] : [];
}

/**
 * test_group.yaml with `output_validator_args` (2025-09's place for the validator's flags) set to `flags`,
 * or null when the file already says them (none: no flags).
 */
export function validatorArgsFile(text: string | undefined, flags: string[]): string | null {
  const args = readYaml(text).output_validator_args;
  const current = Array.isArray(args) ? args.map(String) : typeof args === "string" ? args.split(/\s+/) : [];
  if (JSON.stringify(current.filter(Boolean)) === JSON.stringify(flags)) return null;
  return edited(text ?? "", (doc) =>
    flags.length > 0 ? doc.set("output_validator_args", flags) : doc.delete("output_validator_args"),
  );
}

/** The YAML text changed by `change`, its other keys and comments as they were (unreadable YAML: started anew). */
function edited(text: string, change: (doc: Document) => void): string {
  const parsed = parseDocument(text);
  const doc = parsed.errors.length > 0 || (parsed.contents !== null && !isMap(parsed)) ? new Document({}) : parsed;
  change(doc);
  return doc.toString({ lineWidth: 0 });
}

const isMap = (doc: Document) => {
  const value = doc.toJS();
  return value !== null && typeof value === "object" && !Array.isArray(value);
};
