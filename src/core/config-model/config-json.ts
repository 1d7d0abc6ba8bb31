import { Value } from "@sinclair/typebox/value";
import { acceptBothCases, camelToSnake } from "../normalize";
import {
  assertCheckerFiles,
  resolveOutputCheck,
  resolveSubtasks,
  type OutputCheck,
  type ResolvedSubtask,
} from "./config-judging";
import { unknownField } from "./config-fields";
import { deepest, describe, type SchemaError } from "./config-errors";
import { presetOf, PRESET_NAMES } from "./presets";
import { resolveStages, type ResolvedStage } from "./config-stages";
import {
  CASE_DEFAULTS,
  invalidConfig as invalid,
  ProblemConfigJson,
  type CaseInput,
  type ConfigJson,
  type HorseCase,
  type outputCheckFields,
  type ScoringRule,
} from "./config-schema";

/**
 * config.json parsed, checked and resolved (the schema is config-schema.ts): what the upload refuses
 * and what a judge runs.
 */

/** A case as the judge runs it: Horse's fields with every default applied, and how its output is judged. */
export type JudgeCase = HorseCase & OutputCheck;
export interface JudgeLanguage {
  name: string;
  /** The language preset whose commands fill what the config leaves out (presets.ts), or null. */
  preset: string | null;
  compileFiles: string[];
  compileArgs: string[];
  cases: JudgeCase[];
  /** Empty when the language has none: then every case scores on its own. */
  subtasks: ResolvedSubtask[];
  scoring: ScoringRule;
  /** Lint, analysis and keyword stages (config-stages.ts), in order; empty when it has none. */
  stages: ResolvedStage[];
  /** Where its cases are written (JSON path), for a refusal naming one; `note` names the language there. */
  casesAt: string;
  note: string;
}

/** What the caller knows besides config.json: the paths of the version's files, when it has them. */
export interface ConfigContext {
  archiveFiles?: Iterable<string>;
}

/**
 * Parses and validates config.json bytes (either key case); every problem is a FileValidationError saying what and
 * where.
 */
export function parseConfigJson(bytes: Uint8Array | string, context: ConfigContext = {}): ConfigJson {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes));
  } catch (error) {
    throw invalid(`not valid JSON (${error instanceof Error ? error.message : "parse error"})`);
  }
  return validateConfigJson(raw, context);
}

export function validateConfigJson(raw: unknown, context: ConfigContext = {}): ConfigJson {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid("must be a JSON object");
  assertKnownFields(raw);
  acceptBothCases(raw, true);
  const config = Value.Clean(ProblemConfigJson, Value.Clone(raw)) as ConfigJson;
  const error = deepest(Value.Errors(ProblemConfigJson, config).First() as SchemaError | undefined);
  if (error) throw invalid(`${error.path || "/"}: ${describe(error)}`);
  const names = new Set<string>();
  const presets: [string | undefined, string][] = [
    [config.languageDefault?.preset, "/languageDefault/preset"],
    ...config.languages.map((language, i): [string | undefined, string] => [language.preset, `/languages/${i}/preset`]),
  ];
  for (const [preset, at] of presets) {
    if (preset !== undefined && !presetOf(preset))
      throw invalid(`${at}: unknown preset ${JSON.stringify(preset)} (one of ${PRESET_NAMES.join(", ")})`);
  }
  for (const language of config.languages) {
    if (names.has(language.name)) throw invalid(`language "${language.name}" is listed twice`);
    names.add(language.name);
  }
  const languages = resolveLanguages(config);
  if (context.archiveFiles) {
    const present = new Set([...context.archiveFiles].map(normaliseConfigPath));
    assertCheckerFiles(config, present);
    assertCaseFiles(languages, present);
    assertStageFiles(languages, present);
    for (const [i, validator] of (config.inputValidators ?? []).entries())
      for (const [k, file] of validator.files.entries())
        if (!present.has(normaliseConfigPath(file)))
          throw invalid(`/inputValidators/${i}/files/${k}: "${file}" is not in the config archive`);
  }
  return config;
}

/** The judge finds a config file by its path with any leading "./" dropped (plan.ts normalisePath). */
export const normaliseConfigPath = (path: string) => path.replace(/^(\.\/)+/, "");

/**
 * Every file a case reads from the version is in it, so that judging never finds one missing: the input
 * (not for an output-only case, which judges a submitted file: its checker reads an empty input) and the
 * expected output (not for an interactive case without a checker: the interactor judges; nor when nothing is
 * compared, `"compare": "none"`).
 */
function assertCaseFiles(languages: JudgeLanguage[], present: Set<string>): void {
  for (const language of languages) {
    for (const [j, c] of language.cases.entries()) {
      const needed: ["executeInputFile" | "executeOutputFile", boolean][] = [
        ["executeInputFile", !c.submittedOutput],
        ["executeOutputFile", (!c.interactor || c.checker !== null) && !(c.compare === "none" && !c.checker)],
      ];
      for (const [field, wanted] of needed) {
        if (wanted && !present.has(normaliseConfigPath(c[field])))
          throw invalid(
            `${language.casesAt}/${j}/${field}${language.note}: "${c[field]}" is not in the config archive`,
          );
      }
    }
  }
}

/** A command stage's files (its script) are in the version, as a checker's are. */
function assertStageFiles(languages: JudgeLanguage[], present: Set<string>): void {
  for (const language of languages)
    for (const stage of language.stages)
      for (const file of stage.files ?? [])
        if (!present.has(normaliseConfigPath(file)))
          throw invalid(`stage "${stage.name}" of language "${language.name}": "${file}" is not in the config archive`);
}

/** A field config.json's schema does not know is refused with its path (config-fields.ts). */
export function assertKnownFields(raw: unknown): void {
  const unknown = unknownField(ProblemConfigJson, raw);
  if (unknown) throw invalid(`${unknown}: unknown field (docs/config-reference.md "Fields" lists every field)`);
}

/**
 * What a judge runs: each language with `languageDefault` filled in where it says nothing, and each
 * case with the language's `caseDefault` and then Horse's case defaults. Throws FileValidationError
 * for what only the merged view shows (an epsilon without float, a subtask naming a missing case).
 */
export function resolveLanguages(config: ConfigJson): JudgeLanguage[] {
  const fallback = config.languageDefault ?? {};
  return config.languages.map((language, i) => {
    const at = `/languages/${i}`;
    const [caseDefault, caseDefaultAt] = language.caseDefault
      ? [language.caseDefault, `${at}/caseDefault`]
      : [fallback.caseDefault ?? {}, "/languageDefault/caseDefault"];
    const [cases, casesAt] = language.cases
      ? [language.cases, `${at}/cases`]
      : [fallback.cases ?? [], "/languageDefault/cases"];
    const note = (path: string) => (path.startsWith("/languageDefault") ? ` (language "${language.name}")` : "");
    const named = (path: string) => `${path}${note(path)}`;
    const presetName = language.preset ?? fallback.preset ?? null;
    const preset = presetOf(presetName);
    // A preset's run commands stand under the case defaults, so any level of the config wins over them.
    const base = preset
      ? { ...CASE_DEFAULTS, executeFiles: preset.executeFiles, executeArgs: preset.executeArgs }
      : CASE_DEFAULTS;
    if (cases.length === 0)
      throw invalid(`${at}: language "${language.name}" has no cases (and languageDefault gives none)`);
    const resolved = cases.map((c, j) => ({
      ...base,
      ...stripJudging(stripUndefined(caseDefault)),
      ...stripJudging(stripUndefined(c)),
      ...resolveOutputCheck([
        { at: named(`${casesAt}/${j}`), fields: c },
        { at: named(caseDefaultAt), fields: caseDefault },
        { at, fields: language },
        { at: "/languageDefault", fields: fallback },
      ]),
    }));
    if (preset?.outputOnly) {
      const without = resolved.findIndex((c) => !c.submittedOutput);
      if (without >= 0)
        throw invalid(`${named(`${casesAt}/${without}`)}: an output-only case needs "submittedOutput" (a file name)`);
    }
    for (const [j, c] of resolved.entries()) {
      // The program of an interactive case talks to the interactor on stdin and stdout, and is run.
      const clash = c.interactor && (["fileInput", "fileOutput", "submittedOutput"] as const).find((f) => c[f]);
      if (clash) throw invalid(`${named(`${casesAt}/${j}`)}: an interactive case cannot have "${clash}"`);
    }
    const [subtasks, subtasksAt] = language.subtasks
      ? [language.subtasks, `${at}/subtasks`]
      : [fallback.subtasks ?? [], "/languageDefault/subtasks"];
    const [stages, stagesAt] = language.stages
      ? [language.stages, `${at}/stages`]
      : [fallback.stages ?? [], "/languageDefault/stages"];
    return {
      name: language.name,
      preset: preset ? presetName : null,
      compileFiles: language.compileFiles ?? fallback.compileFiles ?? (preset ? [preset.source] : ["a.cpp"]),
      compileArgs: language.compileArgs ?? fallback.compileArgs ?? (preset ? preset.compileArgs : ["gcc", "a.cpp"]),
      cases: resolved,
      subtasks: resolveSubtasks(subtasks, resolved.length, subtasksAt, note(subtasksAt)),
      scoring: language.scoring ?? fallback.scoring ?? "all",
      stages: resolveStages(stages, named(stagesAt)),
      casesAt,
      note: note(casesAt),
    };
  });
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

/** The output-check fields are resolved level by level (config-judging.ts), not merged blindly. */
function stripJudging<T extends Partial<CaseInput>>(value: T): Omit<T, keyof typeof outputCheckFields> {
  const { compare: _compare, epsilon: _epsilon, checker: _checker, ...rest } = value;
  return rest;
}

export function languageNames(config: ConfigJson): string[] {
  return config.languages.map((l) => l.name);
}

/** config.json as Horse wrote it: pretty-printed, snake_case keys. */
export function serializeConfigJson(config: ConfigJson): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(toSnake(config), null, 2)}\n`);
}

function toSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnake);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelToSnake(k), toSnake(v)]));
  }
  return value;
}
