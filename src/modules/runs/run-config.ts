import { BizError } from "../../core/errors";
import {
  normaliseConfigPath,
  resolveLanguages,
  validateConfigJson,
  type JudgeCase,
} from "../../core/config-model/config-json";
import type { CaseInput, ConfigJson } from "../../core/config-model/config-schema";
import { presetOf } from "../../core/config-model/presets";
import { PUBLIC_CASE_CATEGORIES } from "../judging/protocol/case-layout";

/**
 * The config a run is judged with (docs/api.md "Runs"), made from the problem's latest version for one
 * language: the same compile commands, preset, limits and run commands, and only the cases a run may use.
 * Whatever the judge may fetch for the run is what this names, so a hidden case's files never reach it:
 * not its bytes, not its size, not its path.
 */

/** A samples run judges at most this many of the language's public cases (the first ones). */
export const RUN_SAMPLES_MAX = 10;

export type RunMode = "input" | "samples";

export interface RunConfig {
  config: ConfigJson;
  /** Paths of the version's files the run needs (checkers, interactors, the public cases' data, graders). */
  versionPaths: string[];
  /** Per case of the generated config: the version's case index it stands for, or null (the user's input). */
  sources: (number | null)[];
  /** The path the user's input is stored under (input mode), or null. */
  inputPath: string | null;
}

/** The case as config.json writes it, every resolved field explicit (nothing left to the defaults). */
function caseInputOf(c: JudgeCase): CaseInput {
  const out: CaseInput = {
    category: c.category,
    time: c.time,
    memory: c.memory,
    score: c.score,
    ignoreWhitespace: c.ignoreWhitespace,
    executeFiles: c.executeFiles,
    executeArgs: c.executeArgs,
    executeInputFile: c.executeInputFile,
    executeOutputFile: c.executeOutputFile,
    compare: c.compare,
    checker: c.checker,
  };
  if (c.epsilon !== null) out.epsilon = c.epsilon;
  for (const key of ["fileInput", "fileOutput", "interactor"] as const) if (c[key]) out[key] = c[key] as never;
  return out;
}

/**
 * The run's config for `language` of the version whose config.json is `raw` and whose files are `present`.
 * Input mode: the language's first case (its limits, file I/O and interactor) reading the user's input
 * where the case's input was, judged by nothing but the limits (`"compare": "none"`). Samples mode: the
 * language's public cases (PUBLIC_CASE_CATEGORIES, what a record shows its submitter), each judged as a
 * record's would be, without subtasks.
 */
export function runConfigOf(raw: unknown, present: Set<string>, language: string, mode: RunMode): RunConfig {
  // Checked at its upload; read again for its resolved cases (not against today's file rules).
  const config = validateConfigJson(raw);
  const index = config.languages.findIndex((l) => l.name === language);
  const resolved = resolveLanguages(config)[index];
  if (!resolved) throw new BizError("UnsupportedLanguageError", `the problem's config has no language "${language}"`);
  if (presetOf(resolved.preset)?.outputOnly)
    throw new BizError("Error", "an output-only problem has no program to run: submit the output files instead");
  let cases: CaseInput[];
  let sources: (number | null)[];
  let inputPath: string | null = null;
  if (mode === "input") {
    const first = resolved.cases[0];
    inputPath = normaliseConfigPath(first.executeInputFile);
    cases = [{ ...caseInputOf(first), compare: "none", checker: null, category: "pretest" }];
    delete cases[0].epsilon;
    sources = [null];
  } else {
    const picked = resolved.cases
      .map((c, i) => [c, i] as const)
      .filter(([c]) => PUBLIC_CASE_CATEGORIES.has(c.category))
      .slice(0, RUN_SAMPLES_MAX);
    if (picked.length === 0)
      throw new BizError("Error", `the problem has no sample or pretest case in "${language}" to run on`);
    cases = picked.map(([c]) => caseInputOf(c));
    sources = picked.map(([, i]) => i);
  }
  const generated: ConfigJson = {
    languages: [
      {
        name: resolved.name,
        ...(resolved.preset ? { preset: resolved.preset } : {}),
        compileFiles: resolved.compileFiles,
        compileArgs: resolved.compileArgs,
        cases,
        scoring: "all",
      },
    ],
  };
  const wanted = new Set<string>();
  const want = (path: string) => {
    const normal = normaliseConfigPath(path);
    if (present.has(normal) && normal !== inputPath) wanted.add(normal);
  };
  for (const path of [...resolved.compileFiles, ...cases.flatMap((c) => c.executeFiles ?? [])]) want(path);
  for (const c of cases) {
    for (const path of [...(c.checker?.files ?? []), ...(c.interactor?.files ?? [])]) want(path);
    if (mode === "samples") for (const path of [c.executeInputFile!, c.executeOutputFile!]) want(path);
  }
  // What the judge will see, checked as an upload would be: every file a case reads is in the run's tree.
  const tree = new Set([...wanted, ...(inputPath ? [inputPath] : []), "config.json"]);
  validateConfigJson(generated, { archiveFiles: tree });
  return { config: generated, versionPaths: [...wanted].sort(), sources, inputPath };
}
