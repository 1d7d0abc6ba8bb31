import { type Static, type TSchema, Type as t } from "@sinclair/typebox";
import { BizError } from "../errors";
import { PATTERNS } from "../patterns";
import { StageSchema } from "./config-stages";

/** `T | null`, written as Elysia's `t.Nullable` writes it, so the OpenAPI document is unchanged. */
const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()], { nullable: true });

/**
 * Horse's (joj-elephant's) `config.json`: languages, each with compile settings and test cases, plus
 * this judge's own fields (docs/config-reference.md "Fields"): `compare`, `epsilon`, `checker` at the
 * case, `caseDefault`, language or `languageDefault` level, and `subtasks` with `scoring` per language.
 */

const RelativePath = t.String({ minLength: 1, maxLength: 255, pattern: PATTERNS.relativePath });
const TIME = PATTERNS.duration;
const MEMORY = PATTERNS.memorySize;
// Closed lists as unions of literals: no implied default (a UnionEnum defaults to its first value,
// which Elysia would write into a body that left the field out).
const CompareSchema = t.Union([
  t.Literal("exact"),
  t.Literal("whitespace"),
  t.Literal("float"),
  t.Literal("tokens-icase"),
  t.Literal("lines-unordered"),
  // Nothing compared: the case is accepted when the program ends within its limits (a run on the user's input).
  t.Literal("none"),
]);
export type CompareMode = Static<typeof CompareSchema>;
const ScoringSchema = t.Union([t.Literal("all"), t.Literal("min")]);
export type ScoringRule = Static<typeof ScoringSchema>;

const KATTIS_PROTOCOL =
  "testlib (default), or kattis: `executeArgs… input answer feedback_dir flags…`, the output on stdin " +
  "(an interactor: talking on stdin and stdout), exit 42 accepted, 43 wrong answer, the message in " +
  "feedback_dir/judgemessage.txt";
const InteractorProtocol = t.Union([t.Literal("testlib"), t.Literal("kattis")], { description: KATTIS_PROTOCOL });
const CheckerProtocol = t.Union([t.Literal("testlib"), t.Literal("kattis"), t.Literal("hustoj")], {
  description:
    `${KATTIS_PROTOCOL}, or hustoj (a HUSTOJ or FPS special judge): \`executeArgs… input answer output\`, exit 0 ` +
    "accepted, any other exit wrong answer, its stdout the message",
});
/** A program of the problem's, built from config archive files: a checker, an interactor, an input validator. */
const problemProgram = <P extends TSchema>(what: string, run: string, title: string, protocol: P, note = "") =>
  t.Object(
    {
      files: t.Array(RelativePath, {
        minItems: 1,
        maxItems: 64,
        description: `config archive files the ${what} is built from`,
      }),
      compileArgs: t.Optional(t.Array(t.String(), { description: "empty or absent: nothing to compile (a script)" })),
      executeArgs: t.Array(t.String(), { minItems: 1, description: `run as \`executeArgs… ${run}\`${note}` }),
      protocol: t.Optional(protocol),
      flags: t.Optional(
        t.Array(t.String(), { description: "kattis: arguments after the feedback directory (validator_flags)" }),
      ),
    },
    { title },
  );
export const CheckerSchema = problemProgram(
  "checker",
  "<input> <output> <expected output>",
  "Checker",
  CheckerProtocol,
);
/**
 * An interactive case's interactor (docs/config-reference.md "Interactive problems"): a testlib interactor's
 * protocol.
 */
export const InteractorSchema = problemProgram(
  "interactor",
  "<input> <output>",
  "Interactor",
  InteractorProtocol,
  ", its stdout the program's stdin and the program's stdout its stdin",
);

/** How a case's output is judged; most specific level wins (case, caseDefault, language, languageDefault). */
export const outputCheckFields = {
  compare: t.Optional(CompareSchema),
  epsilon: t.Optional(
    t.Number({ exclusiveMinimum: 0, maximum: 1, description: "`float`'s absolute or relative error, the looser" }),
  ),
  checker: t.Optional(Nullable(CheckerSchema)),
};

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
    fileInput: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 255,
        pattern: PATTERNS.relativePath,
        description: "the case's input is put in the program's directory under this name instead of on stdin",
      }),
    ),
    fileOutput: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 255,
        pattern: PATTERNS.relativePath,
        description: "the file the program writes under this name is judged instead of its stdout",
      }),
    ),
    submittedOutput: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 255,
        pattern: PATTERNS.relativePath,
        description: "output-only preset: the submission's file judged as this case's output",
      }),
    ),
    interactor: t.Optional(Nullable(InteractorSchema)),
    ...outputCheckFields,
  },
  { title: "Case" },
);

export const SubtaskSchema = t.Object(
  {
    score: t.Integer({ minimum: 0, maximum: 1_000_000 }),
    cases: t.Array(t.Integer({ minimum: 0 }), { minItems: 1, description: "indices into the language's cases" }),
    dependsOn: t.Optional(
      t.Array(t.Integer({ minimum: 0 }), { description: "subtasks that must be fully accepted first" }),
    ),
  },
  { title: "Subtask" },
);

const languageDefaultFields = {
  preset: t.Optional(
    t.String({
      maxLength: 64,
      description: 'a language preset (docs/config-reference.md "Language presets"): its commands, unless given here',
    }),
  ),
  compileFiles: t.Optional(t.Array(RelativePath)),
  compileArgs: t.Optional(t.Array(t.String())),
  caseDefault: t.Optional(Nullable(CaseSchema)),
  cases: t.Optional(Nullable(t.Array(CaseSchema))),
  ...outputCheckFields,
  subtasks: t.Optional(Nullable(t.Array(SubtaskSchema))),
  scoring: t.Optional(ScoringSchema),
  stages: t.Optional(
    Nullable(
      t.Array(StageSchema, {
        maxItems: 16,
        description: 'lint, analysis and keyword stages (docs/config-reference.md "Stages")',
      }),
    ),
  ),
};
export const LanguageDefaultSchema = t.Object(languageDefaultFields, { title: "LanguageDefault" });
export const LanguageSchema = t.Object(
  { ...languageDefaultFields, name: t.String({ minLength: 1, maxLength: 256 }) },
  { title: "Language" },
);
const InputValidatorProtocol = t.Union([t.Literal("kattis"), t.Literal("testlib"), t.Literal("checktestdata")], {
  description:
    "testlib (default; Polygon's validators): exit 0 valid; kattis: exit 42 valid, 43 invalid; checktestdata: " +
    "`files` is a checktestdata script, valid when checktestdata accepts the input",
});
/**
 * A program that says whether a case's input is well-formed (docs/config-reference.md "Input validators"): kept
 * with the problem and exported with it; never run by the judge.
 */
export const InputValidatorSchema = problemProgram(
  "input validator",
  "flags…",
  "InputValidator",
  InputValidatorProtocol,
  ", the case's input on stdin",
);
export const ProblemConfigJson = t.Object(
  {
    languages: t.Array(LanguageSchema, { minItems: 1 }),
    languageDefault: t.Optional(Nullable(LanguageDefaultSchema)),
    inputValidators: t.Optional(Nullable(t.Array(InputValidatorSchema, { maxItems: 16 }))),
  },
  { title: "ProblemConfigJson" },
);
export type ConfigJson = Static<typeof ProblemConfigJson>;
export type CaseInput = Static<typeof CaseSchema>;
export type CheckerInput = Static<typeof CheckerSchema>;
export type InputValidatorInput = Static<typeof InputValidatorSchema>;
/** Horse's case fields, every one given (the defaults applied). */
export type HorseCase = Required<Omit<CaseInput, keyof typeof outputCheckFields | FileIoField>> &
  Pick<CaseInput, FileIoField>;
/** File input and output and the interactor (extensions): no default, absent means stdin and stdout. */
type FileIoField = "fileInput" | "fileOutput" | "submittedOutput" | "interactor";

export const CASE_DEFAULTS: HorseCase = {
  category: "pretest",
  time: "1s",
  memory: "64m",
  score: 10,
  ignoreWhitespace: true,
  executeFiles: ["./a.out"],
  executeArgs: ["./a.out", "--test"],
  executeInputFile: "case.in",
  executeOutputFile: "case.out",
};

/** Horse's default config, written when an archive has none and `configJsonOnMissing=use_default`. */
export function defaultConfigJson(): ConfigJson {
  return {
    languages: [
      {
        name: "c++",
        compileFiles: ["a.cpp"],
        compileArgs: ["gcc", "a.cpp"],
        caseDefault: null,
        cases: [{ ...CASE_DEFAULTS }],
      },
    ],
    languageDefault: null,
  };
}

export const invalidConfig = (message: string) => new BizError("FileValidationError", `config.json: ${message}`);
