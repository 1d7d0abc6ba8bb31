import { parseConfigJson, resolveLanguages, type JudgeCase } from "../core/config-model/config-json";
import type { ScoringRule } from "../core/config-model/config-schema";
import type { ResolvedSubtask } from "../core/config-model/config-judging";
import type { CompareRule } from "./compare";
import type { Limits } from "./sandbox";
import type { JudgeSettings } from "./judge-settings";

/** What judging one record means, read from its pinned config version's `config.json`. */
export interface JudgePlan {
  language: string;
  /** Files the compile step needs: from the submission, else from the config (a problem's own header). */
  compileFiles: string[];
  /** Empty: nothing to compile (an interpreted language); the compile files are the program. */
  compileArgs: string[];
  cases: CasePlan[];
  /** Groups of cases scored together (config.json `subtasks`); cases in none score on their own. */
  subtasks: ResolvedSubtask[];
  scoring: ScoringRule;
}

/** A checker (special judge) from the config archive: built once per set of file digests, run per case. */
export interface CheckerPlan {
  /** Config paths of the files it is built from. */
  files: string[];
  /** Empty: nothing to compile (a script). */
  compileArgs: string[];
  executeArgs: string[];
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
}

/** `./a.out` and `a.out` name the same file; paths are relative to the work directory. */
export const normalisePath = (path: string) => path.replace(/^(\.\/)+/, "");

/** "1s", "1.5s", "500ms" → milliseconds. */
export function parseTime(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`unreadable time "${text}"`);
  return Math.max(1, Math.round(Number(match[1]) * (match[2] === "s" ? 1000 : 1)));
}

/** "64m", "256MB", "512k", "1g", "1048576" (bytes) → KiB. */
export function parseMemory(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg])?b?$/i.exec(text.trim());
  if (!match) throw new Error(`unreadable memory "${text}"`);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? "").toLowerCase() as "" | "k" | "m" | "g"];
  return Math.max(1, Math.ceil((Number(match[1]) * unit) / 1024));
}

function caseLimits(c: JudgeCase, settings: JudgeSettings): Limits {
  const cpuMs = parseTime(c.time);
  return {
    cpuMs,
    wallMs: cpuMs * settings.wallFactor + settings.wallSlackMs,
    memoryKb: parseMemory(c.memory),
    fileBytes: settings.outputLimitBytes,
    processes: settings.processes,
  };
}

/**
 * The plan for `language`, or null when the config does not list it. A config that does not parse
 * throws: the API validated it on upload, so that is the judge's failure, not the submission's.
 */
export function planJudging(configJson: Uint8Array, language: string, settings: JudgeSettings): JudgePlan | null {
  const resolved = resolveLanguages(parseConfigJson(configJson)).find((l) => l.name === language);
  if (!resolved) return null;
  return {
    language,
    compileFiles: resolved.compileFiles.map(normalisePath),
    compileArgs: resolved.compileArgs,
    cases: resolved.cases.map((c, index) => ({
      index,
      category: c.category,
      score: c.score,
      compare: { compare: c.compare, epsilon: c.epsilon },
      checker: c.checker && {
        files: c.checker.files.map(normalisePath),
        compileArgs: c.checker.compileArgs ?? [],
        executeArgs: c.checker.executeArgs,
      },
      executeFiles: c.executeFiles.map(normalisePath),
      executeArgs: c.executeArgs,
      inputPath: normalisePath(c.executeInputFile),
      expectedPath: normalisePath(c.executeOutputFile),
      limits: caseLimits(c, settings),
    })),
    subtasks: resolved.subtasks,
    scoring: resolved.scoring,
  };
}
