import { t, type Static } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { BizError } from "../../errors";
import { acceptBothCases, camelToSnake } from "../../http/normalize";
import { PATTERNS } from "../../http/patterns";

/** Horse's (joj-elephant's) `config.json`: languages, each with compile settings and test cases. */

const RelativePath = t.String({ minLength: 1, maxLength: 255, pattern: PATTERNS.relativePath });
const TIME = PATTERNS.duration;
const MEMORY = PATTERNS.memorySize;

export const CaseSchema = t.Object(
  {
    category: t.Optional(t.String({ maxLength: 64 })),
    time: t.Optional(t.String({ pattern: TIME, description: "e.g. 1s, 500ms" })),
    memory: t.Optional(t.String({ pattern: MEMORY, description: "e.g. 64m, 256MB, 512k" })),
    // A record's score is the sum over its cases, in an integer column.
    score: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
    ignoreWhitespace: t.Optional(t.Boolean()),
    executeFiles: t.Optional(t.Array(RelativePath)),
    executeArgs: t.Optional(t.Array(t.String())),
    executeInputFile: t.Optional(RelativePath),
    executeOutputFile: t.Optional(RelativePath),
  },
  { title: "Case" },
);

const languageDefaultFields = {
  compileFiles: t.Optional(t.Array(RelativePath)),
  compileArgs: t.Optional(t.Array(t.String())),
  caseDefault: t.Optional(t.Nullable(CaseSchema)),
  cases: t.Optional(t.Nullable(t.Array(CaseSchema))),
};
export const LanguageDefaultSchema = t.Object(languageDefaultFields, { title: "LanguageDefault" });
export const LanguageSchema = t.Object({ ...languageDefaultFields, name: t.String({ minLength: 1, maxLength: 256 }) }, { title: "Language" });
export const ProblemConfigJson = t.Object(
  { languages: t.Array(LanguageSchema, { minItems: 1 }), languageDefault: t.Optional(t.Nullable(LanguageDefaultSchema)) },
  { title: "ProblemConfigJson" },
);
export type ConfigJson = Static<typeof ProblemConfigJson>;
type CaseInput = Static<typeof CaseSchema>;
export type JudgeCase = Required<CaseInput>;
export interface JudgeLanguage { name: string; compileFiles: string[]; compileArgs: string[]; cases: JudgeCase[] }

export const CASE_DEFAULTS: JudgeCase = {
  category: "pretest", time: "1s", memory: "64m", score: 10, ignoreWhitespace: true,
  executeFiles: ["./a.out"], executeArgs: ["./a.out", "--test"], executeInputFile: "case.in", executeOutputFile: "case.out",
};

/** Horse's default config, written when an archive has none and `configJsonOnMissing=use_default`. */
export function defaultConfigJson(): ConfigJson {
  return { languages: [{ name: "c++", compileFiles: ["a.cpp"], compileArgs: ["gcc", "a.cpp"], caseDefault: null, cases: [{ ...CASE_DEFAULTS }] }], languageDefault: null };
}

const invalid = (message: string) => new BizError("FileValidationError", `config.json: ${message}`);

/** Parses and validates config.json bytes (either key case); every problem is a FileValidationError saying what and where. */
export function parseConfigJson(bytes: Uint8Array | string): ConfigJson {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes));
  } catch (error) {
    throw invalid(`not valid JSON (${error instanceof Error ? error.message : "parse error"})`);
  }
  return validateConfigJson(raw);
}

export function validateConfigJson(raw: unknown): ConfigJson {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid("must be a JSON object");
  acceptBothCases(raw, true);
  const config = Value.Clean(ProblemConfigJson, Value.Clone(raw)) as ConfigJson;
  const error = deepest(Value.Errors(ProblemConfigJson, config).First());
  if (error) throw invalid(`${error.path || "/"}: ${error.message}`);
  const names = new Set<string>();
  for (const language of config.languages) {
    if (names.has(language.name)) throw invalid(`language "${language.name}" is listed twice`);
    names.add(language.name);
  }
  resolveLanguages(config);
  return config;
}

/**
 * What a judge runs: each language with `languageDefault` filled in where it says nothing, and each
 * case with the language's `caseDefault` and then Horse's case defaults.
 */
export function resolveLanguages(config: ConfigJson): JudgeLanguage[] {
  const fallback = config.languageDefault ?? {};
  return config.languages.map((language, i) => {
    const caseDefault = language.caseDefault ?? fallback.caseDefault ?? {};
    const cases = language.cases ?? fallback.cases ?? [];
    if (cases.length === 0) throw invalid(`/languages/${i}: language "${language.name}" has no cases (and languageDefault gives none)`);
    return {
      name: language.name,
      compileFiles: language.compileFiles ?? fallback.compileFiles ?? ["a.cpp"],
      compileArgs: language.compileArgs ?? fallback.compileArgs ?? ["gcc", "a.cpp"],
      cases: cases.map((c) => ({ ...CASE_DEFAULTS, ...stripUndefined(caseDefault), ...stripUndefined(c) })),
    };
  });
}

type SchemaError = { path: string; message: string; errors?: Iterable<SchemaError>[] };

/** A union (a nullable group) reports only "Expected union value": its branches know what is wrong. */
function deepest(error: SchemaError | undefined): SchemaError | undefined {
  let best = error;
  for (const branch of error?.errors ?? []) {
    for (const inner of branch) {
      const candidate = deepest(inner);
      if (candidate && (!best || candidate.path.length > best.path.length)) best = candidate;
    }
  }
  return best;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
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
