import { expect } from "bun:test";
import { validateConfigJson } from "../../src/core/config-model/config-json";
import { BizError } from "../../src/core/errors";
import { readHydro } from "../../src/modules/problem-packages/hydro/hydro-package";
import { configOf } from "../../src/modules/problem-packages/model/package-config";
import type { PackageProblem } from "../../src/modules/problem-packages/model/package-model";

// Hydro problem packages of our own, built as file maps the way the archive reader hands them over.

export const bytes = (text: string) => new TextEncoder().encode(text);
export const filesOf = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([p, t]) => [p, bytes(t)]));
export const readOne = (entries: Record<string, string>) => {
  const problems = readHydro(filesOf(entries));
  expect(problems).toHaveLength(1);
  return problems[0];
};
/** The case files a config names, each with a line of its own. */
export const data = (...names: string[]) => Object.fromEntries(names.map((n) => [`testdata/${n}`, `${n}\n`]));
export const refusal = (entries: Record<string, string>) => {
  try {
    readHydro(filesOf(entries));
  } catch (error) {
    expect(error).toBeInstanceOf(BizError);
    return (error as BizError).message;
  }
  throw new Error("the package was read");
};
/** config.json as the import would store it, checked by the same rules as an upload (which add snake_case keys). */
export const configFor = (problem: PackageProblem) =>
  validateConfigJson(structuredClone(configOf(problem)), { archiveFiles: problem.files.keys() }).languageDefault!;
