import { parse } from "yaml";
import { contentRules, type Expected, type KattisVersion } from "./kattis-verify-content";

/**
 * What problemtools' verifyproblem checks of a package's layout and problem.yaml, per format version, written
 * from its source (metadata.py's models, formatversion.py, statement_util.py, verifyproblem.py) and the format's
 * specification: a finding is something the tool reports as an error, or "warning: …" for one of its warnings
 * that a solver or a judge would miss (no sample data, data without a final newline). It runs nothing: no
 * compiling, no judging, no statement rendering. Given what the caller knows (`expected`), it also checks that
 * the package says it (the time limit).
 */

export type { KattisVersion };
type Files = Map<string, Uint8Array>;
type Yaml = Record<string, unknown>;

const CURRENT_KEYS = [
  ...["problem_format_version", "name", "uuid", "type", "version", "credits", "source", "license"],
  ...["rights_owner", "embargo_until", "limits", "keywords", "languages", "allow_file_writing", "constants"],
];
const LEGACY_KEYS = [
  ...["problem_format_version", "type", "name", "uuid", "author", "source", "source_url", "license"],
  ...["rights_owner", "limits", "validation", "validator_flags", "grading", "keywords"],
];
const LIMITS = [
  ...["memory", "output", "code", "compilation_time", "compilation_memory"],
  ...["validation_time", "validation_memory", "validation_output"],
];
const CURRENT_LIMITS = [...LIMITS, "time_multipliers", "time_limit", "time_resolution", "validation_passes"];
const LEGACY_LIMITS = [...LIMITS, "time_multiplier", "time_safety_margin"];
const LICENSES = ["unknown", "public domain", "cc0", "cc by", "cc by-sa", "educational", "permission"];
const TYPES = ["pass-fail", "scoring", "multi-pass", "interactive", "submit-answer"];
const SUBMISSIONS: Record<KattisVersion, string[]> = {
  legacy: ["accepted", "partially_accepted", "wrong_answer", "time_limit_exceeded", "run_time_error"],
  "2023-07-draft": ["accepted", "rejected", "wrong_answer", "time_limit_exceeded", "run_time_error", "brute_force"],
  "2025-09": ["accepted", "rejected", "wrong_answer", "time_limit_exceeded", "run_time_error", "brute_force"],
};
const LAYOUT = {
  // Legacy's specification renamed input_format_validators/ to input_validators/ (inputValidatorRules): both are
  // legacy's, the old name only legacy's.
  legacy: {
    statement: "problem_statement",
    types: ["tex"],
    validator: "output_validators",
    input: "input_format_validators",
  },
  current: { statement: "statement", types: ["md", "tex"], validator: "output_validator", input: "input_validators" },
};
const SAFE_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isMap = (value: unknown): value is Yaml => Boolean(value) && typeof value === "object" && !Array.isArray(value);
const isText = (value: unknown) => typeof value === "string";
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());

export function verifyKattis(files: Files, version: KattisVersion, expected: Expected = {}): string[] {
  const findings: string[] = [];
  const yaml = problemYaml(files, version, findings);
  if (!yaml) return findings;
  const types = typesOf(yaml, version);
  const names = statementRules(files, yaml, version, findings);
  nameRules(yaml, names, version, findings);
  dataRules(files, types, findings);
  folderRules(files, types, yaml, version, findings);
  contentRules(files, version, expected, findings);
  for (const path of files.keys())
    for (const part of path.split("/"))
      if (!SAFE_NAME.test(part) && !(path === ".timelimit" && version === "legacy"))
        findings.push(`invalid file or folder name '${part}' in ${path}`);
  return findings;
}

/** problem.yaml: the version string, and only the version's fields, each of its type. */
function problemYaml(files: Files, version: KattisVersion, findings: string[]): Yaml | null {
  const yaml = files.has("problem.yaml") ? (parse(text(files.get("problem.yaml"))) ?? {}) : null;
  if (!isMap(yaml)) {
    findings.push(yaml === null ? "no problem.yaml" : "problem.yaml is not a map");
    return null;
  }
  const said = yaml.problem_format_version ?? "legacy";
  const accepted = version === "2023-07-draft" ? ["2023-07-draft", "2023-07"] : [version];
  if (!accepted.includes(String(said))) findings.push(`problem_format_version '${said}' is not ${version}`);
  const legacy = version === "legacy";
  for (const key of Object.keys(yaml))
    if (!(legacy ? LEGACY_KEYS : CURRENT_KEYS).includes(key)) findings.push(`problem.yaml: unknown field '${key}'`);
  const limits = yaml.limits ?? {};
  if (!isMap(limits)) findings.push("problem.yaml: limits is not a map");
  else
    for (const [key, value] of Object.entries(limits)) {
      if (!(legacy ? LEGACY_LIMITS : CURRENT_LIMITS).includes(key))
        findings.push(`problem.yaml: unknown limit '${key}'`);
      else if (key !== "time_multipliers" && typeof value !== "number")
        findings.push(`problem.yaml: limits.${key} is not a number`);
    }
  if (yaml.license !== undefined && !LICENSES.includes(String(yaml.license)))
    findings.push(`problem.yaml: license '${yaml.license}' is not one of ${LICENSES.join(", ")}`);
  if (yaml.uuid !== undefined && !UUID.test(String(yaml.uuid)))
    findings.push(`problem.yaml: uuid '${yaml.uuid}' is not a UUID`);
  if (!legacy && yaml.uuid === undefined) findings.push("problem.yaml: no uuid");
  const stringFields = legacy
    ? ["name", "author", "source", "source_url", "rights_owner", "validation", "validator_flags", "keywords"]
    : ["rights_owner", "version"];
  for (const key of stringFields)
    if (yaml[key] !== undefined && !isText(yaml[key])) findings.push(`problem.yaml: ${key} is not a string`);
  if (!legacy && yaml.keywords !== undefined && !(Array.isArray(yaml.keywords) && yaml.keywords.every(isText)))
    findings.push("problem.yaml: keywords is not a list of strings");
  if (!legacy && yaml.credits !== undefined && !isText(yaml.credits) && !isMap(yaml.credits))
    findings.push("problem.yaml: credits is neither a string nor a map");
  const type = yaml.type ?? "pass-fail";
  const allowed = legacy ? ["pass-fail", "scoring"] : TYPES;
  if (
    !(Array.isArray(type) ? type : [type]).every((t) => allowed.includes(String(t))) ||
    (legacy && Array.isArray(type))
  )
    findings.push(`problem.yaml: type ${JSON.stringify(type)} is not one of ${allowed.join(", ")}`);
  if (
    legacy &&
    yaml.validation !== undefined &&
    !/^(default|custom( (score|interactive))*)$/.test(String(yaml.validation))
  )
    findings.push(`problem.yaml: validation '${yaml.validation}' is not default or custom [score] [interactive]`);
  return yaml;
}

function typesOf(yaml: Yaml, version: KattisVersion): string[] {
  const types = (Array.isArray(yaml.type) ? yaml.type : [yaml.type ?? "pass-fail"]).map(String);
  if (version === "legacy" && String(yaml.validation ?? "").includes("interactive")) types.push("interactive");
  return types;
}

/** The statements by language: in the version's folder, of its kinds, one per language. */
function statementRules(files: Files, yaml: Yaml, version: KattisVersion, findings: string[]) {
  const layout = version === "legacy" ? LAYOUT.legacy : LAYOUT.current;
  const found = new RegExp(
    `^${layout.statement}/problem(\\.([a-z]{2,3}|[a-z]{2}-[A-Z]{2}))?\\.(${layout.types.join("|")})$`,
  );
  const names = new Map<string, string | null>();
  for (const [path, bytes] of files) {
    const match = found.exec(path);
    if (!match || (match[2] === undefined && version !== "legacy")) continue;
    const language = match[2] ?? "en";
    if (names.has(language)) findings.push(`more than one statement in language ${language}`);
    const named = /\\problemname\{(.*)\}/.exec(text(bytes))?.[1] ?? null;
    names.set(language, named);
    if (match[3] === "md") imageRules(files, path, text(bytes), findings);
  }
  if (names.size === 0)
    findings.push(`no statement in ${layout.statement}/ (problem.<language>.${layout.types.join("|")})`);
  const other = version === "legacy" ? LAYOUT.current.statement : LAYOUT.legacy.statement;
  if ([...files.keys()].some((path) => path.startsWith(`${other}/`)))
    findings.push(`${other}/ is not ${version}'s statement folder`);
  if (version === "legacy" && [...names.values()].some((name) => !name && !yaml.name))
    findings.push("a legacy statement names no problem (\\problemname)");
  return names;
}

/** A Markdown statement's images: relative, beside it, PNG or JPEG. */
function imageRules(files: Files, path: string, markdown: string, findings: string[]) {
  const folder = path.slice(0, path.lastIndexOf("/") + 1);
  for (const [, src] of markdown.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)/g)) {
    if (/^([a-z]+:|\/)/i.test(src)) findings.push(`${path}: image ${src} is not a file of the package`);
    else if (!/\.(png|jpe?g)$/i.test(src)) findings.push(`${path}: image ${src} is not PNG or JPEG`);
    else if (!files.has(`${folder}${src}`)) findings.push(`${path}: image ${src} is not in ${folder}`);
  }
}

/** The name: given for every statement's language, and no language without a statement. */
function nameRules(yaml: Yaml, statements: Map<string, string | null>, version: KattisVersion, findings: string[]) {
  const name = yaml.name;
  const names: Yaml =
    version === "legacy"
      ? Object.fromEntries([...statements].map(([language, named]) => [language, named ?? name]))
      : isMap(name)
        ? name
        : isText(name)
          ? { en: name }
          : {};
  if (version !== "legacy" && !isText(name) && !isMap(name)) findings.push("problem.yaml: no name");
  for (const language of statements.keys())
    if (!isText(names[language]) || !String(names[language]).trim())
      findings.push(`no problem name in language ${language}`);
  const without = Object.keys(names).filter((language) => !statements.has(language));
  if (without.length > 0) findings.push(`names for languages without a statement: ${without.join(", ")}`);
}

/** data/: only sample and secret at the top, secret not empty, each .in with its .ans; .interaction rules. */
function dataRules(files: Files, types: string[], findings: string[]) {
  const data = [...files.keys()].filter((path) => path.startsWith("data/"));
  for (const path of data) {
    const [, top] = path.split("/");
    if (path.split("/").length === 2 && path !== "data/testdata.yaml") findings.push(`${path}: a file at data/'s top`);
    else if (path.split("/").length > 2 && !["sample", "secret"].includes(top))
      findings.push(`${path}: data/ holds only sample and secret`);
    if (path.endsWith(".in") && !files.has(`${path.slice(0, -3)}.ans`)) findings.push(`${path}: no answer file`);
    if (path.endsWith(".ans") && !files.has(`${path.slice(0, -4)}.in`)) findings.push(`${path}: no input file`);
  }
  if (!data.some((path) => path.startsWith("data/secret/") && path.endsWith(".in"))) findings.push("no secret data");
  const interactive = types.includes("interactive") || types.includes("multi-pass");
  const interactions = data.filter((path) => /^data\/sample\/[^/]+\.interaction$/.test(path));
  const samples = data.some((path) => path.startsWith("data/sample/") && path.endsWith(".in"));
  if (!samples && !(interactive && interactions.length > 0)) findings.push("warning: no sample data");
  for (const path of interactions) {
    if (!interactive) findings.push(`${path}: an interaction sample of a problem that is not interactive`);
    const lines = text(files.get(path)).split("\n").slice(0, -1);
    if (lines.some((line) => !/^[<>]/.test(line))) findings.push(`${path}: a line does not start with < or >`);
  }
}

/**
 * At least one input validator, where problemtools' release requires one (legacy, 2023-07-draft: "No input format
 * validators found"): a program of input_validators/ (legacy: or input_format_validators/, the one it reads first):
 * a source file or script it knows, a checktestdata or VIVA file, or a folder.
 */
function inputValidatorRules(paths: string[], version: KattisVersion, findings: string[]) {
  if (version === "2025-09") return;
  const folders = version === "legacy" ? ["input_format_validators", "input_validators"] : ["input_validators"];
  const folder = folders.find((name) => paths.some((path) => path.startsWith(`${name}/`))) ?? folders.at(-1);
  const programs = paths.filter((path) => {
    const parts = path.split("/");
    return parts[0] === folder && (parts.length > 2 || PROGRAM.test(parts[1]));
  });
  if (programs.length === 0) findings.push(`no input validator in ${folder}/`);
}
const PROGRAM = /\.(c|cc|cpp|cxx|c\+\+|C|py|py3|java|kt|go|rs|js|sh|ctd|viva)$/;

/** Validators' and submissions' folders by the version's names; a custom validator where the type needs one. */
function folderRules(files: Files, types: string[], yaml: Yaml, version: KattisVersion, findings: string[]) {
  const paths = [...files.keys()];
  const legacy = version === "legacy";
  const layout = legacy ? LAYOUT.legacy : LAYOUT.current;
  const other = legacy ? LAYOUT.current : LAYOUT.legacy;
  for (const folder of [other.validator, other.input])
    if (paths.some((path) => path.startsWith(`${folder}/`)) && !(legacy && folder === "input_validators"))
      findings.push(`${folder}/ is not ${version}'s folder`);
  inputValidatorRules(paths, version, findings);
  const validator = paths.filter((path) => path.startsWith(`${layout.validator}/`));
  if (legacy && validator.some((path) => path.split("/").length !== 3))
    findings.push("output_validators/ holds its validator as one folder");
  if (legacy && new Set(validator.map((path) => path.split("/")[1])).size > 1)
    findings.push("more than one output validator");
  // problemtools' release takes each entry of 2023-07-draft's output_validator/ as a program (run.find_programs):
  // a source beside its header is compiled alone. 2025-09's output_validator/ is the program itself.
  const entries = new Set(validator.map((path) => path.split("/")[1]));
  if (version === "2023-07-draft" && entries.size > 1)
    findings.push(`output_validator/ holds one program, a file or one folder, not ${[...entries].join(", ")}`);
  const custom = legacy
    ? String(yaml.validation ?? "").startsWith("custom")
    : types.includes("interactive") || types.includes("multi-pass");
  if (custom && validator.length === 0) findings.push(`no output validator in ${layout.validator}/`);
  const verdicts = SUBMISSIONS[version];
  const yamlAdds = version === "2025-09" && files.has("submissions/submissions.yaml");
  for (const path of paths.filter((p) => p.startsWith("submissions/"))) {
    const folder = path.split("/")[1];
    if (path.split("/").length === 2) {
      if (!(version === "2025-09" && folder === "submissions.yaml"))
        findings.push(`${path}: a file at submissions/'s top`);
    } else if (!verdicts.includes(folder) && !yamlAdds)
      findings.push(`submissions/${folder}/ is not a ${version} verdict folder`);
  }
}
