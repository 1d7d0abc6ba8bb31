import { parse as parseYaml } from "yaml";
import type { CaseResult } from "../../../core/judge-protocol";
import { languageOf } from "../model/package-languages";
import { refuse, text } from "../model/package-model";
import type { PackageCase, PackageSubmission, VerdictRule } from "../model/package-model";

/**
 * A Kattis package's example submissions as the format means them (docs/problem-packages.md "Verification"):
 * each file or folder directly in a folder of submissions/ is a program; the folder says what it earns
 * (2025-09's `permitted` and `required` verdicts, or the legacy format's table), and submissions.yaml may
 * override a folder's meaning, add rules for globs of submissions and of test groups, a score and a language.
 */

type Kattis = "AC" | "WA" | "TLE" | "RTE";
interface Meaning {
  permitted?: Kattis[];
  required?: Kattis[];
  partial?: boolean;
}

/** The spec's default folders (2025-09, "Default directories"). */
const CURRENT: Record<string, Meaning> = {
  accepted: { permitted: ["AC"] },
  rejected: { required: ["RTE", "TLE", "WA"] },
  wrong_answer: { permitted: ["AC", "WA"], required: ["WA"] },
  time_limit_exceeded: { permitted: ["AC", "TLE"], required: ["TLE"] },
  run_time_error: { permitted: ["AC", "RTE"], required: ["RTE"] },
  brute_force: { permitted: ["AC", "RTE", "TLE"], required: ["RTE", "TLE"] },
};

/** The legacy format's table: its wrong_answer may not crash or time out, its time_limit_exceeded may not crash. */
const LEGACY: Record<string, Meaning> = {
  accepted: { permitted: ["AC"] },
  partially_accepted: { partial: true },
  wrong_answer: { permitted: ["AC", "WA"], required: ["WA"] },
  time_limit_exceeded: { permitted: ["AC", "WA", "TLE"], required: ["TLE"] },
  run_time_error: { required: ["RTE"] },
};

/** Kattis's verdicts as ours: a run-time error is also running out of memory or writing too much. */
const OURS: Record<Kattis, CaseResult[]> = {
  AC: ["accepted"],
  WA: ["wrong_answer"],
  TLE: ["time_limit_exceeded"],
  RTE: ["runtime_error", "memory_limit_exceeded", "output_limit_exceeded"],
};

const METADATA = new Set([
  "permitted",
  "required",
  "score",
  "language",
  "entrypoint",
  "authors",
  "model_solution",
  "message",
  "use_for_time_limit",
]);

type Yaml = Record<string, unknown>;

export function kattisSubmissions(
  files: Map<string, Uint8Array>,
  cases: PackageCase[],
  legacy: boolean,
  languages: readonly string[],
  notes: string[],
): PackageSubmission[] {
  const yaml = submissionsYaml(files);
  const defaults = legacy ? LEGACY : CURRENT;
  const programs = new Map<string, string[]>();
  for (const path of [...files.keys()].sort()) {
    const parts = path.split("/");
    if (parts[0] !== "submissions" || parts.length < 3) continue;
    const program = parts.slice(0, 3).join("/");
    programs.set(program, [...(programs.get(program) ?? []), path]);
  }
  const noted = new Set<string>();
  return [...programs].map(([path, paths]) => {
    const relative = path.slice("submissions/".length);
    const folder = relative.split("/")[0];
    const override = (yaml[folder] ?? {}) as Yaml;
    const base = defaults[folder] ? { ...defaults[folder], ...meaningOf(override, `${folder}`) } : null;
    const rules: VerdictRule[] = base ? rulesOf(base, `${folder}/`) : [];
    let score: PackageSubmission["score"] = base?.partial ? "partial" : undefined;
    let declared: string | null = null;
    for (const [glob, value] of Object.entries(yaml)) {
      if (!matches(glob, relative) || !value || typeof value !== "object") continue;
      const entry = value as Yaml;
      if (typeof entry.language === "string") declared = entry.language;
      // A default folder's own key changed its meaning above; any other key adds rules.
      if (glob !== folder || !defaults[folder])
        rules.push(...rulesOf(meaningOf(entry, glob), `submissions.yaml: ${glob}`));
      score = scoreOf(entry.score) ?? score;
      for (const [key, inner] of Object.entries(entry)) {
        if (METADATA.has(key) || !inner || typeof inner !== "object") continue;
        const covered = cases.flatMap((c, i) => (matches(key, casePath(c)) ? [i] : []));
        const source = `submissions.yaml: ${glob} → ${key}`;
        rules.push(...rulesOf(meaningOf(inner as Yaml, source), source).map((r) => ({ ...r, cases: covered })));
      }
      if (entry.message !== undefined && !noted.has(glob)) {
        noted.add(glob);
        notes.push(`submissions.yaml: ${glob}: a judge message requirement is not checked`);
      }
    }
    const known = base !== null || rules.length > 0 || score !== undefined;
    const choice = known
      ? languageOf(paths, files, languages, declared)
      : {
          language: null,
          skipped:
            `submissions/${folder}/ is not a folder the ${legacy ? "legacy " : ""}format defines ` +
            `(${Object.keys(defaults).join(", ")}) and submissions.yaml gives it no rule: ` +
            "what it should earn is unknown",
        };
    return { path, files: paths, expected: folder, rules, ...(score ? { score } : {}), ...choice };
  });
}

function submissionsYaml(files: Map<string, Uint8Array>): Yaml {
  const source = files.get("submissions/submissions.yaml");
  if (!source) return {};
  try {
    const yaml = parseYaml(text(source)) ?? {};
    if (typeof yaml !== "object" || Array.isArray(yaml)) throw new Error("not a mapping");
    return yaml as Yaml;
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw refuse(`submissions/submissions.yaml is not a YAML mapping (${why})`);
  }
}

const VERDICT = /^(AC|WA|TLE|RTE)$/;

function meaningOf(entry: Yaml, where: string): Meaning {
  const list = (key: "permitted" | "required"): Kattis[] | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && VERDICT.test(v)))
      throw refuse(`submissions/submissions.yaml: ${where}: ${key} must be a list of AC, WA, TLE, RTE`);
    return value as Kattis[];
  };
  const permitted = list("permitted");
  const required = list("required");
  return { ...(permitted ? { permitted } : {}), ...(required ? { required } : {}) };
}

function rulesOf(meaning: Meaning, source: string): VerdictRule[] {
  if (!meaning.permitted && !meaning.required) return [];
  return [
    {
      permitted: (meaning.permitted ?? []).flatMap((v) => OURS[v]),
      required: (meaning.required ?? []).flatMap((v) => OURS[v]),
      source,
    },
  ];
}

function scoreOf(value: unknown): PackageSubmission["score"] | undefined {
  if (typeof value === "number") return { min: value, max: value };
  if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === "number"))
    return { min: Math.min(value[0], value[1]), max: Math.max(value[0], value[1]) };
  return undefined;
}

/** A case's path as submissions.yaml names it: below data/, without `.in`. */
const casePath = (c: PackageCase) => c.input.replace(/^data\//, "").replace(/\.in$/, "");

/**
 * Whether a glob (`*` within a name, `{a,b}` alternatives) matches the path or one of its parent folders, as
 * the spec matches submissions and test groups.
 */
export function matches(glob: string, path: string): boolean {
  const pattern = new RegExp(`^${globSource(glob.replace(/\/+$/, ""))}$`);
  const parts = path.split("/");
  return parts.some((_, i) => pattern.test(parts.slice(0, i + 1).join("/")));
}

function globSource(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") out += "[^/]*";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) {
        out += "\\{";
        continue;
      }
      out += `(?:${glob
        .slice(i + 1, end)
        .split(",")
        .map(globSource)
        .join("|")})`;
      i = end;
    } else out += c.replace(/[.+?^$()|[\]\\]/g, "\\$&");
  }
  return out;
}
