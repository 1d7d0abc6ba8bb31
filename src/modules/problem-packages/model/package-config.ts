import { PRESET_NAMES, PRESETS } from "../../../core/config-model/presets";
import type { ConfigJson } from "../../../core/config-model/config-schema";
import type { PackageProblem } from "./package-model";

/** Every preset that runs a program: a package's problem may be solved in any of them. */
export const LANGUAGES = PRESET_NAMES.filter((name) => !("outputOnly" in PRESETS[name]));

/**
 * config.json for a package's problem: every language preset, the package's limits and judging at
 * `caseDefault`, its cases in the format's order (data files where the package has them), a record's
 * score: the cases' own scores where the format gives them, else 100 shared out over the secret cases
 * (pass-fail); groups as subtasks with their scores (scoring).
 */
export function configOf(problem: PackageProblem): ConfigJson {
  const caseDefault = {
    time: `${problem.timeMs}ms`,
    memory: `${problem.memoryMb}m`,
    ...(problem.compare ?? {}),
    ...(problem.checker ? { checker: problem.checker } : {}),
    ...(problem.interactor ? { interactor: problem.interactor } : {}),
    ...(problem.fileInput ? { fileInput: problem.fileInput } : {}),
    ...(problem.fileOutput ? { fileOutput: problem.fileOutput } : {}),
  };
  const groups = [...problem.groupScores.keys()];
  const ownScores = problem.cases.some((c) => c.score !== undefined);
  const scored = groups.length > 0 || ownScores ? [] : problem.cases.filter((c) => c.category === "secret");
  const each = scored.length > 0 ? Math.floor(100 / scored.length) : 0;
  const cases = problem.cases.map((c) => ({
    executeInputFile: c.input,
    ...(c.answer ? { executeOutputFile: c.answer } : {}),
    category: c.category,
    score: c.score ?? (scored.includes(c) ? each + (c === scored.at(-1) ? 100 - each * scored.length : 0) : 0),
  }));
  const subtasks = groups.map((group) => {
    const dependsOn = (problem.groupDependsOn?.get(group) ?? []).map((other) => groups.indexOf(other));
    return {
      score: problem.groupScores.get(group)!,
      cases: problem.cases.flatMap((c, i) => (c.group === group ? [i] : [])),
      ...(dependsOn.length > 0 ? { dependsOn: dependsOn.filter((i) => i >= 0) } : {}),
    };
  });
  return {
    languageDefault: { caseDefault, cases, ...(subtasks.length > 0 ? { subtasks } : {}) },
    languages: LANGUAGES.map((name) => ({ name, preset: name })),
    ...(problem.inputValidators?.length ? { inputValidators: problem.inputValidators } : {}),
  } as ConfigJson;
}
