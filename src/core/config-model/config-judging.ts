import { invalidConfig as invalid, type CheckerInput, type CompareMode, type ConfigJson } from "./config-schema";

/**
 * The judge's own config.json fields, resolved and checked at upload so that judging never fails
 * on something the upload could have refused: how each case's output is judged (a built-in
 * comparison or a checker) and the language's subtasks.
 */

/** How one case's output is judged: a checker when there is one, else the built-in comparison. */
export interface OutputCheck {
  compare: CompareMode;
  /** For `float` only: the allowed absolute or relative error, whichever is looser. */
  epsilon: number | null;
  checker: CheckerInput | null;
}

interface OutputFields {
  compare?: CompareMode;
  epsilon?: number;
  checker?: CheckerInput | null;
  ignoreWhitespace?: boolean;
}

/** One place the fields may be written, and its JSON path (for the refusal's message). */
export interface Level {
  at: string;
  fields: OutputFields;
}

/** How a level says how output is judged; at one level a checker beats `compare`, which beats `ignoreWhitespace`. */
function methodOf(fields: OutputFields): { compare: CompareMode; checker: CheckerInput | null } | null {
  if (fields.checker) return { compare: fields.compare ?? "whitespace", checker: fields.checker };
  if (fields.compare) return { compare: fields.compare, checker: null };
  if (fields.ignoreWhitespace !== undefined)
    return { compare: fields.ignoreWhitespace ? "whitespace" : "exact", checker: null };
  return null;
}

/**
 * The most specific level that says anything decides (levels most specific first); none: Horse's
 * default, `ignoreWhitespace: true`. `epsilon` is inherited on its own, and refused where it is
 * written at least as specifically as a comparison other than `float` (it would silently do nothing).
 */
export function resolveOutputCheck(levels: Level[]): OutputCheck {
  const methodAt = levels.findIndex((level) => methodOf(level.fields) !== null);
  const method = methodAt >= 0 ? methodOf(levels[methodAt].fields)! : { compare: "whitespace" as const, checker: null };
  const epsilonAt = levels.findIndex((level) => level.fields.epsilon !== undefined);
  const epsilon = epsilonAt >= 0 ? levels[epsilonAt].fields.epsilon! : null;
  const float = !method.checker && method.compare === "float";
  if (float && epsilon === null)
    throw invalid(`${levels[methodAt].at}: "compare": "float" needs an "epsilon" (e.g. 1e-6)`);
  if (!float && epsilon !== null && (methodAt < 0 || epsilonAt <= methodAt)) {
    const what = method.checker ? "a checker" : `"compare": "${method.compare}"`;
    throw invalid(
      `${levels[epsilonAt].at}: "epsilon" applies only to "compare": "float", but this case is judged by ${what}`,
    );
  }
  return { compare: method.compare, epsilon: float ? epsilon : null, checker: method.checker };
}

export interface ResolvedSubtask {
  score: number;
  cases: number[];
  dependsOn: number[];
}

/**
 * Subtasks as the judge needs them: every case index within the language's cases and in one
 * subtask at most, every dependency another subtask, and no cycle (so some order runs each group
 * after the groups it depends on).
 */
export function resolveSubtasks(
  subtasks: { score: number; cases: number[]; dependsOn?: number[] }[],
  caseCount: number,
  at: string,
  note = "",
): ResolvedSubtask[] {
  const owner = new Map<number, number>();
  const resolved = subtasks.map((subtask, i) => {
    for (const [k, index] of subtask.cases.entries()) {
      const where = `${at}/${i}/cases/${k}${note}`;
      if (index >= caseCount)
        throw invalid(
          `${where}: case ${index} does not exist (the language has ${caseCount} cases, 0 to ${caseCount - 1})`,
        );
      if (owner.has(index)) throw invalid(`${where}: case ${index} is already in subtask ${owner.get(index)}`);
      owner.set(index, i);
    }
    const dependsOn = subtask.dependsOn ?? [];
    for (const [k, other] of dependsOn.entries()) {
      const where = `${at}/${i}/dependsOn/${k}${note}`;
      if (other >= subtasks.length)
        throw invalid(`${where}: subtask ${other} does not exist (there are ${subtasks.length})`);
      if (other === i) throw invalid(`${where}: a subtask cannot depend on itself`);
    }
    return { score: subtask.score, cases: [...subtask.cases], dependsOn: [...new Set(dependsOn)] };
  });
  const cycle = findCycle(resolved);
  if (cycle) throw invalid(`${at}${note}: subtasks ${cycle.join(" → ")} depend on each other in a cycle`);
  return resolved;
}

/** A dependency cycle as the subtasks along it (first repeated at the end), or null. */
function findCycle(subtasks: ResolvedSubtask[]): number[] | null {
  const state = new Array<"new" | "open" | "done">(subtasks.length).fill("new");
  const path: number[] = [];
  const visit = (i: number): number[] | null => {
    if (state[i] === "done") return null;
    if (state[i] === "open") return [...path.slice(path.indexOf(i)), i];
    state[i] = "open";
    path.push(i);
    for (const next of subtasks[i].dependsOn) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state[i] = "done";
    return null;
  };
  for (let i = 0; i < subtasks.length; i++) {
    const found = visit(i);
    if (found) return found;
  }
  return null;
}

/**
 * Every checker and interactor written anywhere must be built from files the version has (checked where the
 * file list is known).
 */
export function assertCheckerFiles(config: ConfigJson, present: Set<string>): void {
  // The judge finds a config file by its path with any leading "./" dropped (plan.ts normalisePath).
  const normalise = (path: string) => path.replace(/^(\.\/)+/, "");
  const check = (level: WithChecker | null | undefined, at: string) => {
    for (const field of ["checker", "interactor"] as const) {
      for (const [k, file] of (level?.[field]?.files ?? []).entries()) {
        if (!present.has(normalise(file)))
          throw invalid(`${at}/${field}/files/${k}: "${file}" is not in the config archive`);
      }
    }
  };
  type WithChecker = { checker?: CheckerInput | null; interactor?: CheckerInput | null };
  type Level = WithChecker & { caseDefault?: WithChecker | null; cases?: WithChecker[] | null };
  const levels: [Level | null | undefined, string][] = [
    [config.languageDefault, "/languageDefault"],
    ...config.languages.map((language, i): [Level, string] => [language, `/languages/${i}`]),
  ];
  for (const [level, at] of levels) {
    if (!level) continue;
    check(level, at);
    check(level.caseDefault, `${at}/caseDefault`);
    for (const [j, c] of (level.cases ?? []).entries()) check(c, `${at}/cases/${j}`);
  }
}
