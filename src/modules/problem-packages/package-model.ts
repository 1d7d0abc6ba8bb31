import { BizError } from "../../core/errors";
import type { CheckerInput, CompareMode } from "../../core/config-model/config-schema";

/**
 * A problem package read into what our config needs (docs/running-a-course.md "Problem packages"): the Kattis and
 * Polygon readers make one, package-config.ts turns it into config.json and the version's files.
 */
export interface PackageCase {
  /** Paths in the package. */
  input: string;
  answer: string | null;
  category: "pretest" | "secret";
  /** A test group (Kattis data/secret/<group>), scored together; null: on its own. */
  group: string | null;
}

export interface PackageSubmission {
  path: string;
  /** The verdict the package says it earns: accepted, wrong_answer, time_limit_exceeded, runtime_error. */
  expected: string;
}

export interface PackageProblem {
  format: "kattis" | "polygon";
  title: string;
  /** The statement as Markdown (or the text of a LaTeX one). */
  content: string;
  timeMs: number;
  memoryMb: number;
  cases: PackageCase[];
  /** How output is judged: a built-in comparison, or a checker; an interactive problem has an interactor. */
  compare: { compare: CompareMode; epsilon?: number } | null;
  checker: CheckerInput | null;
  interactor: CheckerInput | null;
  fileInput: string | null;
  fileOutput: string | null;
  /** Each group's score, in the order of `cases` (scoring problems). */
  groupScores: Map<string, number>;
  submissions: PackageSubmission[];
  /** Every file kept in the config version: the data, the validators, the submissions, the statement. */
  files: Map<string, Uint8Array>;
  /** What the format has and we do not keep (said in the import's answer and in docs/running-a-course.md). */
  notes: string[];
}

/** A package we cannot honour: the message names the file and what is missing. */
export const refuse = (message: string) => new BizError("FileValidationError", `package: ${message}`);

export const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : "");

/** The build and run commands of a validator, checker or interactor from its sources' language. */
export function programOf(sources: string[], name: string, where: string): Omit<CheckerInput, "protocol" | "flags"> {
  const of = (pattern: RegExp) => sources.filter((path) => pattern.test(path));
  const cpp = of(/\.(cc|cpp|cxx)$/i);
  const c = of(/\.c$/);
  const py = of(/\.py$/);
  if (cpp.length > 0)
    return {
      files: sources,
      compileArgs: ["g++", "-O2", "-std=gnu++17", "-o", name, ...cpp],
      executeArgs: [`./${name}`],
    };
  if (c.length > 0)
    return {
      files: sources,
      compileArgs: ["gcc", "-O2", "-std=gnu11", "-o", name, ...c, "-lm"],
      executeArgs: [`./${name}`],
    };
  if (py.length === 1) return { files: sources, compileArgs: [], executeArgs: ["python3", py[0]] };
  throw refuse(`${where}: no C, C++ or single Python source to build (${sources.join(", ") || "empty"})`);
}
