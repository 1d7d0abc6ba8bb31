import { stringify } from "yaml";

/**
 * The Kattis format versions an export can be written in (docs/problem-packages.md "Export as a Kattis
 * package"): each one's folders, and its problem.yaml with only the fields that version defines. problemtools'
 * verifyproblem refuses a problem.yaml with any other field (pydantic, extra='forbid'), so nothing of another
 * format's problem.yaml (Hydro's title, tag, pid) may pass through.
 */

export const KATTIS_VERSIONS = ["legacy", "2023-07-draft", "2025-09"] as const;
export type KattisVersion = (typeof KATTIS_VERSIONS)[number];
/** The newest that problemtools' current release loads: it knows legacy and 2023-07-draft, not 2025-09. */
export const DEFAULT_KATTIS_VERSION: KattisVersion = "2023-07-draft";

type Yaml = Record<string, unknown>;

/**
 * Where a file the export placed at its 2025-09 path goes in `version`: legacy's problem_statement/ and
 * output_validators/<name>/ (the validator one folder of its files). 2023-07-draft's output_validator/<name>/ too:
 * problemtools' release takes each entry of output_validator/ as a program, so a source and its header side by side
 * would be two (the source compiled without its header); 2025-09's output_validator/ is the program itself. Input
 * validators stay in input_validators/, legacy's name too since its specification renamed input_format_validators/
 * (problemtools warns of the old one).
 */
export function versionPath(version: KattisVersion, path: string, validatorName: string): string {
  if (version === "2025-09") return path;
  const [top] = path.split("/");
  const rest = path.slice(top.length);
  if (top === "output_validator") return `${version === "legacy" ? `${top}s` : top}/${validatorName}${rest}`;
  if (top === "statement" && version === "legacy") return `problem_statement${rest}`;
  return path;
}

const LICENSES = ["unknown", "public domain", "cc0", "cc by", "cc by-sa", "educational", "permission"];
const LIMITS = [
  ...["memory", "output", "code", "compilation_time", "compilation_memory"],
  ...["validation_time", "validation_memory", "validation_output"],
];
const isText = (value: unknown): value is string => typeof value === "string";
const isMap = (value: unknown): value is Yaml => Boolean(value) && typeof value === "object" && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const pick = (source: Yaml, keys: string[], fits: (value: unknown) => boolean) =>
  Object.fromEntries(keys.filter((key) => fits(source[key])).map((key) => [key, source[key]]));

/** What the export knows of the problem, in 2025-09's words (kattis-export-files.ts problemYamlOf). */
export interface VersionFacts {
  /** 2025-09-shaped problem.yaml: the package's own keys, legacy ones converted. */
  yaml: Yaml;
  /** The name per statement language. */
  names: Record<string, string>;
  types: string[];
  /** Whether the problem has its own output validator (legacy says `validation: custom`). */
  custom: boolean;
  flags: string[];
}

/** problem.yaml in `version`: its own fields only, each of the type that version wants. */
export function versionYaml(version: KattisVersion, facts: VersionFacts): string {
  const body = version === "legacy" ? legacyYaml(facts) : currentYaml(version, facts);
  return stringify(body, { lineWidth: 0 });
}

function currentYaml(version: KattisVersion, { yaml, names, types }: VersionFacts): Yaml {
  const languages = Object.keys(names);
  const limits = isMap(yaml.limits) ? yaml.limits : {};
  const multipliers = isMap(limits.time_multipliers)
    ? pick(limits.time_multipliers, ["ac_to_time_limit", "time_limit_to_tle"], isNumber)
    : {};
  const keptLimits = {
    ...pick(limits, [...LIMITS, "time_limit", "time_resolution", "validation_passes"], isNumber),
    ...(Object.keys(multipliers).length > 0 ? { time_multipliers: multipliers } : {}),
  };
  const source = yaml.source;
  const sourceFits = isText(source) || (isMap(source) && isText(source.name)) || Array.isArray(source);
  return {
    problem_format_version: version,
    name: languages.length === 1 && languages[0] === "en" ? names.en : names,
    uuid: yaml.uuid,
    type: types.length === 0 ? "pass-fail" : types.length === 1 ? types[0] : types,
    ...pick(yaml, ["version", "rights_owner"], isText),
    ...(isText(yaml.credits) || isMap(yaml.credits) ? { credits: yaml.credits } : {}),
    ...(sourceFits ? { source } : {}),
    ...(isText(yaml.license) && LICENSES.includes(yaml.license) ? { license: yaml.license } : {}),
    ...(Array.isArray(yaml.keywords) ? { keywords: yaml.keywords.map(String) } : {}),
    ...(Object.keys(keptLimits).length > 0 ? { limits: keptLimits } : {}),
  };
}

/**
 * Legacy: a plain name (the statements' \problemname say it per language), `validation` for the validator
 * and interaction, `validator_flags` as one string, author, source and source_url as strings, keywords as one
 * string, and time_multiplier and time_safety_margin for 2025-09's time_multipliers; the time limit goes in
 * `.timelimit` (written by the caller), which legacy's limits have no key for.
 */
function legacyYaml({ yaml, names, types, custom, flags }: VersionFacts): Yaml {
  const limits = isMap(yaml.limits) ? yaml.limits : {};
  const multipliers = isMap(limits.time_multipliers) ? limits.time_multipliers : {};
  const source = isMap(yaml.source) ? yaml.source : { name: yaml.source };
  const credits = isMap(yaml.credits) ? yaml.credits.authors : yaml.credits;
  const authors = (Array.isArray(credits) ? credits : [credits]).filter(isText);
  const validation = types.includes("interactive") ? "custom interactive" : custom ? "custom" : "default";
  const keptLimits = {
    ...pick(limits, LIMITS, isNumber),
    ...(isNumber(multipliers.ac_to_time_limit) ? { time_multiplier: multipliers.ac_to_time_limit } : {}),
    ...(isNumber(multipliers.time_limit_to_tle) ? { time_safety_margin: multipliers.time_limit_to_tle } : {}),
  };
  return {
    problem_format_version: "legacy",
    type: types.includes("scoring") ? "scoring" : "pass-fail",
    name: names.en ?? Object.values(names)[0],
    ...(isText(yaml.uuid) ? { uuid: yaml.uuid } : {}),
    ...(authors.length > 0 ? { author: authors.join(", ") } : {}),
    ...(isText(source.name) ? { source: source.name } : {}),
    ...(isText(source.url) ? { source_url: source.url } : {}),
    ...pick(yaml, ["rights_owner"], isText),
    ...(isText(yaml.license) && LICENSES.includes(yaml.license) ? { license: yaml.license } : {}),
    ...(Array.isArray(yaml.keywords) ? { keywords: yaml.keywords.map(String).join(" ") } : {}),
    ...(Object.keys(keptLimits).length > 0 ? { limits: keptLimits } : {}),
    validation,
    ...(flags.length > 0 ? { validator_flags: flags.join(" ") } : {}),
  };
}
