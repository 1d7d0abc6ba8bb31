import { type Static, Type as t } from "@sinclair/typebox";
import { PATTERNS } from "../patterns";
import { BizError } from "../errors";

/**
 * Judging stages (docs/config-reference.md "Stages"): lint, static analysis and keyword rules run on the
 * submission beside its tests, each finding a deduction with a comment, as JOJ3's courses grade. One object
 * with every kind's fields rather than a union per kind: the unknown-field check (config-fields.ts) walks
 * one object schema, and the check below says which kind a misplaced field belongs to.
 */

export const STAGE_KINDS = ["keywords", "clang-tidy", "cppcheck", "cpplint", "command"] as const;
export type StageKind = (typeof STAGE_KINDS)[number];
const LINTERS: readonly StageKind[] = ["clang-tidy", "cppcheck", "cpplint"];
/** The linters' commands and Debian packages (the judge's linters.ts runs them; `bun run setup` installs them). */
export const LINT_TOOLS = [
  { command: "clang-tidy", pkg: "clang-tidy" },
  { command: "cppcheck", pkg: "cppcheck" },
  { command: "cpplint", pkg: "cpplint" },
] as const;

const Points = t.Integer({ minimum: 0, maximum: 1_000_000 });
const CheckGlob = t.String({
  minLength: 1,
  maxLength: 128,
  pattern: "^-?[A-Za-z0-9_.*/:+-]+$",
  description: "a check's name, `*` matching anything; a leading `-` leaves matching checks out",
});

export const KeywordPatternSchema = t.Object(
  {
    pattern: t.Optional(
      t.String({ minLength: 1, maxLength: 200, description: "plain text, whitespace runs match any whitespace" }),
    ),
    regex: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "a JavaScript regular expression" })),
    deduction: t.Optional(Points),
    forbid: t.Optional(t.Boolean({ description: "any occurrence sets the record's score to 0" })),
    message: t.Optional(t.String({ maxLength: 200, description: "the comment shown with each occurrence" })),
  },
  { title: "KeywordPattern" },
);

export const StageSchema = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 64 }),
    kind: t.Union(
      [
        t.Literal("keywords"),
        t.Literal("clang-tidy"),
        t.Literal("cppcheck"),
        t.Literal("cpplint"),
        t.Literal("command"),
      ],
      { description: STAGE_KINDS.join(", ") },
    ),
    maxDeduction: t.Optional(t.Union([Points, t.Null()], { description: "the stage's cap; absent: no cap" })),
    when: t.Optional(t.Union([t.Literal("if-compiles"), t.Literal("always")])),
    at: t.Optional(
      t.Union([t.Literal("before-tests"), t.Literal("after-tests")], {
        description: "run after compiling, before the test cases (default) or after them",
      }),
    ),
    time: t.Optional(t.String({ pattern: PATTERNS.duration, description: "default: the compile limits" })),
    memory: t.Optional(t.String({ pattern: PATTERNS.memorySize })),
    // keywords
    patterns: t.Optional(t.Array(KeywordPatternSchema, { minItems: 1, maxItems: 100 })),
    // clang-tidy, cppcheck, cpplint
    checks: t.Optional(t.Array(CheckGlob, { minItems: 1, maxItems: 100 })),
    deduction: t.Optional(Points),
    deductions: t.Optional(
      t.Array(t.Object({ check: CheckGlob, points: Points }, { title: "CheckDeduction" }), {
        maxItems: 100,
        description: "points per finding of a check; the first entry that matches wins over `deduction`",
      }),
    ),
    args: t.Optional(t.Array(t.String({ maxLength: 256 }), { maxItems: 32, description: "the tool's own options" })),
    // command
    command: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 64 })),
    files: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 255, pattern: PATTERNS.relativePath }), {
        maxItems: 64,
        description: "config archive files the command needs (its script), beside the submission",
      }),
    ),
  },
  { title: "Stage" },
);
export type StageInput = Static<typeof StageSchema>;
export type KeywordPattern = Static<typeof KeywordPatternSchema>;

// config-schema.ts's invalidConfig, written here too: that module imports this one's schema.
const invalid = (message: string) => new BizError("FileValidationError", `config.json: ${message}`);

/** Which fields belong to which kinds; the others are refused on a stage of another kind. */
const KIND_FIELDS: Record<string, readonly StageKind[]> = {
  patterns: ["keywords"],
  checks: LINTERS,
  deduction: LINTERS,
  deductions: LINTERS,
  args: LINTERS,
  command: ["command"],
  files: ["command"],
};

/** A stage as the judge runs it: every default applied. */
export interface ResolvedStage extends StageInput {
  maxDeduction: number | null;
  when: "if-compiles" | "always";
  at: "before-tests" | "after-tests";
}

/** Why a keyword rule's regular expression does not compile (as the judge compiles it: flags g and u), or null. */
export function regexProblem(source: string): string | null {
  try {
    new RegExp(source, "gu");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The language's stages checked and given their defaults. */
export function resolveStages(stages: StageInput[], at: string): ResolvedStage[] {
  const names = new Set<string>();
  return stages.map((stage, i) => {
    const here = `${at}/${i}`;
    if (names.has(stage.name)) throw invalid(`${here}/name: two stages are named "${stage.name}"`);
    names.add(stage.name);
    for (const [field, kinds] of Object.entries(KIND_FIELDS)) {
      if (stage[field as keyof StageInput] !== undefined && !kinds.includes(stage.kind))
        throw invalid(`${here}/${field}: a ${stage.kind} stage has no "${field}" (it is for ${kinds.join(", ")})`);
    }
    if (stage.kind === "keywords") {
      if (!stage.patterns) throw invalid(`${here}: a keywords stage needs "patterns"`);
      for (const [j, p] of stage.patterns.entries()) {
        if ((p.pattern === undefined) === (p.regex === undefined))
          throw invalid(`${here}/patterns/${j}: give exactly one of "pattern" and "regex"`);
        const problem = p.regex === undefined ? null : regexProblem(p.regex);
        if (problem) throw invalid(`${here}/patterns/${j}/regex: ${problem}`);
        if (!p.forbid && p.deduction === undefined)
          throw invalid(`${here}/patterns/${j}: give a "deduction", or "forbid": true`);
      }
    }
    if (stage.kind === "clang-tidy" && !stage.checks)
      throw invalid(`${here}: a clang-tidy stage needs "checks" (e.g. ["bugprone-*"])`);
    if (stage.kind === "command" && !stage.command) throw invalid(`${here}: a command stage needs "command"`);
    return {
      ...stage,
      maxDeduction: stage.maxDeduction ?? null,
      when: stage.when ?? "if-compiles",
      at: stage.at ?? "before-tests",
    };
  });
}

/** Whether a check's name is one a list of globs selects: some glob matches it and no `-` glob does. */
export function checkSelected(globs: readonly string[] | undefined, check: string): boolean {
  if (!globs) return true;
  const matches = (glob: string) => globMatch(glob.replace(/^-/, ""), check);
  return globs.some((g) => !g.startsWith("-") && matches(g)) && !globs.some((g) => g.startsWith("-") && matches(g));
}

/** `*` matches any run of characters; everything else is itself. */
export function globMatch(glob: string, text: string): boolean {
  const source = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(text);
}
