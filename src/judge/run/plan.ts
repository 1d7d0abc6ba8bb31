import { parseConfigJson, resolveLanguages, type JudgeCase } from "../../core/config-model/config-json";
import type { CheckerInput, ScoringRule } from "../../core/config-model/config-schema";
import type { ResolvedSubtask } from "../../core/config-model/config-judging";
import type { ResolvedStage } from "../../core/config-model/config-stages";
import type { CompareRule } from "../outcome/compare";
import type { Limits } from "../sandbox/sandbox";
import type { JudgeSettings } from "../judge-settings";
import { fillArgs, presetOf, type LanguagePreset } from "../../core/config-model/presets";
import { parseMemory, parseTime } from "../../core/config-model/limits";

export { parseMemory, parseTime };

/** What judging one record means, read from its pinned config version's `config.json`. */
export interface JudgePlan {
  language: string;
  /** The language preset the config named (presets.ts), or null: its toolchain and its runtime's memory. */
  preset: LanguagePreset | null;
  presetName: string | null;
  /** Files the compile step needs: from the submission, else from the config (a problem's own header). */
  compileFiles: string[];
  /** Empty: nothing to compile (an interpreted language); the compile files are the program. */
  compileArgs: string[];
  cases: CasePlan[];
  /** Groups of cases scored together (config.json `subtasks`); cases in none score on their own. */
  subtasks: ResolvedSubtask[];
  scoring: ScoringRule;
  /** Lint, analysis and keyword stages, in order (stages/run-stages.ts). */
  stages: ResolvedStage[];
}

/** A checker (special judge) from the config archive: built once per set of file digests, run per case. */
export interface CheckerPlan {
  /** Config paths of the files it is built from. */
  files: string[];
  /** Empty: nothing to compile (a script). */
  compileArgs: string[];
  executeArgs: string[];
  /** How it is called and how it answers: testlib's way, a Kattis output validator's (kattis.ts), HUSTOJ's. */
  protocol: "testlib" | "kattis" | "hustoj";
  /** Kattis: arguments after the feedback directory. */
  flags: string[];
}

export interface CasePlan {
  index: number;
  category: string;
  score: number;
  /** The built-in comparison, used when there is no checker. */
  compare: CompareRule;
  checker: CheckerPlan | null;
  /** Files copied from the compile directory (or the config) into each case's fresh directory. */
  executeFiles: string[];
  executeArgs: string[];
  /** Config paths: the case's input (fed on stdin) and its expected output (never inside the sandbox). */
  inputPath: string;
  expectedPath: string;
  limits: Limits;
  /** File I/O: the input under this name instead of on stdin; this file judged instead of stdout. */
  fileInput: string | null;
  fileOutput: string | null;
  /** Output-only: the submission's file judged as the output. */
  submittedOutput: string | null;
  /** An interactive case's interactor (interactive.ts), built and kept like a checker. */
  interactor: CheckerPlan | null;
  /** The case's own memory limit (KiB): what the student was given, before the runtime's allowance. */
  memoryKb: number;
  /** The runtime's own out-of-memory message on stderr: a memory verdict (presets.ts). */
  outOfMemory: RegExp | null;
}

/** A checker's or an interactor's files and commands. */
const problemProgramPlan = (p: CheckerInput | null): CheckerPlan | null =>
  p && {
    files: p.files.map(normalisePath),
    compileArgs: p.compileArgs ?? [],
    executeArgs: p.executeArgs,
    protocol: p.protocol ?? "testlib",
    flags: p.flags ?? [],
  };

/** `./a.out` and `a.out` name the same file; paths are relative to the work directory. */
export const normalisePath = (path: string) => path.replace(/^(\.\/)+/, "");

/** A case's limits; a managed runtime gets its own allowance beside the student's memory (presets.ts). */
function caseLimits(c: JudgeCase, settings: JudgeSettings, preset: LanguagePreset | null): Limits {
  const cpuMs = parseTime(c.time);
  return {
    cpuMs,
    wallMs: cpuMs * settings.wallFactor + settings.wallSlackMs,
    memoryKb: parseMemory(c.memory) + (preset?.runtimeMb ?? 0) * 1024,
    fileBytes: settings.outputLimitBytes,
    processes: Math.max(settings.processes, preset?.processes ?? 0),
  };
}

/**
 * The plan for `language`, or null when the config does not list it. A config that does not parse
 * throws: the API validated it on upload, so that is the judge's failure, not the submission's.
 */
export function planJudging(configJson: Uint8Array, language: string, settings: JudgeSettings): JudgePlan | null {
  const resolved = resolveLanguages(parseConfigJson(configJson)).find((l) => l.name === language);
  if (!resolved) return null;
  const preset = presetOf(resolved.preset);
  return {
    language,
    preset,
    presetName: resolved.preset,
    compileFiles: resolved.compileFiles.map(normalisePath),
    compileArgs: resolved.compileArgs,
    cases: resolved.cases.map((c, index) => ({
      index,
      category: c.category,
      score: c.score,
      compare: { compare: c.compare, epsilon: c.epsilon },
      checker: problemProgramPlan(c.checker),
      interactor: problemProgramPlan(c.interactor ?? null),
      executeFiles: c.executeFiles.map(normalisePath),
      executeArgs: fillArgs(c.executeArgs, parseMemory(c.memory)),
      inputPath: normalisePath(c.executeInputFile),
      expectedPath: normalisePath(c.executeOutputFile),
      limits: caseLimits(c, settings, preset),
      memoryKb: parseMemory(c.memory),
      fileInput: c.fileInput ? normalisePath(c.fileInput) : null,
      fileOutput: c.fileOutput ? normalisePath(c.fileOutput) : null,
      submittedOutput: c.submittedOutput ? normalisePath(c.submittedOutput) : null,
      outOfMemory: preset?.outOfMemory ?? null,
    })),
    subtasks: resolved.subtasks,
    scoring: resolved.scoring,
    stages: resolved.stages,
  };
}
