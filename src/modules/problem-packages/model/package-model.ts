import { BizError } from "../../../core/errors";
import type { CheckerInput, CompareMode, InputValidatorInput } from "../../../core/config-model/config-schema";
import type { CaseResult } from "../../../core/judge-protocol";

/**
 * A problem package read into what our config needs (docs/problem-packages.md): the Kattis, Polygon, FPS and
 * Hydro readers make one per problem, package-config.ts turns it into config.json and the version's files.
 */
export type { PackageFormat } from "../../../jobs/catalogue";
import type { PackageFormat } from "../../../jobs/catalogue";

export interface PackageCase {
  /** Paths in the package. */
  input: string;
  answer: string | null;
  category: "pretest" | "secret";
  /** A test group (Kattis data/secret/<group>, a Hydro subtask), scored together; null: on its own. */
  group: string | null;
  /** Its own score (a Hydro `sum` subtask's share), when the format gives one; else shared out (configOf). */
  score?: number;
}

/**
 * What case verdicts a submission may and must earn, as its format defines its folder or tag (Kattis's
 * `permitted` and `required`): every case the rule covers has a permitted verdict, and one has a required one.
 */
export interface VerdictRule {
  /** Empty: any verdict. */
  permitted: CaseResult[];
  /** Empty: no such requirement. */
  required: CaseResult[];
  /** The cases it covers, as indices into the problem's `cases`; absent: all. */
  cases?: number[];
  /** Where the rule comes from, for the reason shown: "wrong_answer/", "submissions.yaml: accepted/*". */
  source: string;
}

export interface PackageSubmission {
  /** Its path in the package: a file, or a folder holding a program of several files. */
  path: string;
  /** Its files' paths in the package. */
  files: string[];
  /** What the package says it earns, in the format's words: a Kattis folder, a Polygon tag, an FPS solution. */
  expected: string;
  rules: VerdictRule[];
  /** The record's score must lie in [min, max]; "partial": above 0 and below the full score. */
  score?: { min: number; max: number } | "partial";
  /** The language preset it is judged in; null with `skipped` when it cannot be judged faithfully. */
  language: string | null;
  skipped: string | null;
}

/** A statement the package has: the problem shows one, the others stay among the version's files. */
export interface PackageStatement {
  /** Its path in the package. */
  path: string;
  /** Its language code as the package labels it (en, sv, zh), or null when unlabelled. */
  language: string | null;
}

/** A file shown to solvers: an image the statement links, or an attachment (a testing tool). */
export interface PackageAttachment {
  /** Its path in the package. */
  path: string;
  /** The name the statement links it by (`kattis.png`, Hydro's `file://kattis.png`, an FPS image's src). */
  name: string;
}

export interface PackageProblem {
  format: PackageFormat;
  title: string;
  /** The shown statement as Markdown (or the text of a LaTeX one), its links to attachments by their names. */
  content: string;
  /** Every statement of the package; `content` is made from the first. */
  statements: PackageStatement[];
  attachments: PackageAttachment[];
  timeMs: number;
  memoryMb: number;
  cases: PackageCase[];
  /** How output is judged: a built-in comparison, or a checker; an interactive problem has an interactor. */
  compare: { compare: CompareMode; epsilon?: number } | null;
  checker: CheckerInput | null;
  interactor: CheckerInput | null;
  /** Programs that check a case's input (Kattis input_validators/, Polygon's validators): kept, not run. */
  inputValidators?: InputValidatorInput[];
  fileInput: string | null;
  fileOutput: string | null;
  /** Each group's score, in the order of `cases` (scoring problems). */
  groupScores: Map<string, number>;
  /** Groups that count only once these others are fully accepted (Hydro's subtask `if`). */
  groupDependsOn?: Map<string, string[]>;
  submissions: PackageSubmission[];
  /** Every file kept in the config version: the data, the validators, the submissions, the statements. */
  files: Map<string, Uint8Array>;
  /** What the format has and we do not keep, or what we assumed (shown with the import and the problem). */
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
