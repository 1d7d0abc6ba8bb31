import { readFile } from "node:fs/promises";
import { parseMemory, parseTime } from "../../core/config-model/limits";
import type { ResolvedStage } from "../../core/config-model/config-stages";
import type { StageReport } from "../../core/judge-protocol";
import { sandboxHas } from "../../core/sandbox-path";
import type { BuildDeps } from "../cache/program-cache";
import { howItBroke, returnCodeOf } from "../outcome/verdict";
import type { Toolbox } from "../run/steps";
import type { Limits, RunResult } from "../sandbox/sandbox";
import { runInSlot } from "../sandbox/slots";
import type { WorkFile } from "../sandbox/stage";
import { counted, doneReport, failedReport, linterPoints, skippedReport, type Scored } from "./deduct";
import { parseCommandOutput } from "./findings";
import { scanKeywordsBounded } from "./keyword-scan";
import { LINTABLE, LINTERS, WORK_DIR } from "./linters";
import { stageCacheKey, type StageSources } from "./stage-cache";
import { commandRun, lintRun } from "./stage-layout";

export type { StageSources };

/** Most bytes of a tool's output read (its findings past that are not seen, and the stage says so). */
const OUTPUT_KEEP = 1024 * 1024;

/**
 * Runs a record's stages (docs/config-reference.md "Stages"), each in the slot's sandbox under its own limits
 * (the compile limits unless it sets `time`, `memory`), on the sources as the compile step lays them out, read
 * as sources only (stage-layout.ts). A tool that cannot run, runs out of time or memory, or says nothing
 * readable fails its stage: the judge's side, shown as such, never a silent zero or full mark. A stage that did
 * its job is kept in the judge's cache under its sources, its settings and its tool's fingerprint, so a rejudge
 * or a resubmission of the same code says the same without running the tool again.
 */
export async function runStages(
  stages: ResolvedStage[],
  compiled: boolean,
  sources: StageSources,
  deps: BuildDeps,
): Promise<StageReport[]> {
  const reports: StageReport[] = [];
  for (const stage of stages) {
    deps.signal.throwIfAborted();
    if (stage.when === "if-compiles" && !compiled) {
      reports.push(skippedReport(stage, "not run: the program did not compile"));
      continue;
    }
    reports.push(await cachedStage(stage, sources, deps));
  }
  return reports;
}

async function cachedStage(stage: ResolvedStage, sources: StageSources, deps: BuildDeps): Promise<StageReport> {
  const key = await stageCacheKey(stage, sources, deps.config);
  // This record's own run, when the cache had none (a closure's assignment: a holder, not a narrowed let).
  const made: { report?: StageReport } = {};
  try {
    const [kept] = await deps.cache.built(key, async () => {
      made.report = await runStage(stage, sources, deps);
      deps.logger.info("stage ran", { stage: stage.name, kind: stage.kind, state: made.report.state, key });
      // Only what the tool said is kept: a failure may be the machine's, and is tried again next time.
      if (made.report.state !== "done") throw new NotKept();
      return [{ path: "stage.json", mode: 0o644, bytes: new TextEncoder().encode(JSON.stringify(made.report)) }];
    });
    return made.report ?? (JSON.parse(await readFile(kept.hostPath, "utf8")) as StageReport);
  } catch (error) {
    if (made.report) return made.report;
    deps.signal.throwIfAborted();
    deps.logger.error("stage failed", { stage: stage.name, error });
    return failedReport(stage, "an error of the judge machine (its log has the details)");
  }
}

class NotKept extends Error {}

async function runStage(stage: ResolvedStage, sources: StageSources, deps: BuildDeps): Promise<StageReport> {
  const texts = async () =>
    Promise.all(
      sources.submitted.map(async (f) => ({
        path: f.path,
        text: new TextDecoder().decode(await readFile(f.hostPath)),
      })),
    );
  const submitted = new Set(sources.submitted.map((f) => f.path));
  const limits = stageLimits(stage, deps.tools);
  if (stage.kind === "keywords") {
    const rules = stage.patterns ?? [];
    // Forbidden patterns are looked for on their own: a flood of cheap hits must not use up the scan's budget
    // before the one that sets the score to 0.
    const groups = [rules.flatMap((r, i) => (r.forbid ? [i] : [])), rules.flatMap((r, i) => (r.forbid ? [] : [i]))];
    const hits: { rule: number; file: string; line: number; text: string }[] = [];
    try {
      for (const group of groups.filter((g) => g.length > 0)) {
        const found = await scanKeywordsBounded(
          await texts(),
          group.map((i) => rules[i]),
          limits.cpuMs,
        );
        hits.push(...found.map((hit) => ({ ...hit, rule: group[hit.rule] })));
      }
    } catch (error) {
      return failedReport(stage, error instanceof Error ? error.message : String(error));
    }
    const scored: Scored[] = hits.map((hit) => {
      const rule = rules[hit.rule];
      const said = rule.message ?? (rule.forbid ? `"${hit.text}" is not allowed` : `"${hit.text}"`);
      return {
        file: hit.file,
        line: hit.line,
        check: rule.pattern ?? rule.regex ?? "",
        message: said,
        points: rule.forbid ? 0 : (rule.deduction ?? 0),
        forbids: rule.forbid === true,
      };
    });
    return doneReport(stage, scored);
  }
  const files: WorkFile[] = [...sources.submitted, ...sources.fromConfig].map((f) => ({
    path: f.path,
    mode: 0o644,
    hostPath: f.hostPath,
    writable: true,
  }));
  if (stage.kind === "command") {
    const laid = await commandRun(stage, files, deps.config, deps.cached);
    if ("missing" in laid) return failedReport(stage, laid.missing);
    const run = await runTool(laid.argv, laid.files, limits, deps);
    const broke = howItBroke(run, limits);
    if (broke) return failedReport(stage, `the command: ${broke}`);
    const findings = parseCommandOutput(new TextDecoder().decode(run.stdout), WORK_DIR);
    if (!findings) {
      const why =
        run.exitCode !== 0 ? `exited with ${returnCodeOf(run)}` : "wrote neither `points comment` lines nor JSON";
      return failedReport(stage, `the command ${why}: ${headOf(run.stderr.length ? run.stderr : run.stdout)}`);
    }
    const kept = findings.filter((f) => f.file === "" || submitted.has(f.file));
    const note =
      kept.length < findings.length ? `(${findings.length - kept.length} outside the submission ignored)` : "";
    return doneReport(
      stage,
      kept.map((f) => ({ ...f, points: f.points ?? 0 })),
      note,
    );
  }
  const linter = LINTERS[stage.kind];
  if (!sandboxHas(linter.command))
    return failedReport(stage, `${linter.command} is not installed on this judge (apt-get install ${linter.pkg})`);
  const lintable = [...submitted].filter((path) => LINTABLE.test(path)).sort();
  if (lintable.length === 0) return skippedReport(stage, "not run: the submission has no C or C++ file");
  const laid = await lintRun(linter, stage, files, lintable);
  const run = await runTool(laid.argv, laid.files, limits, deps);
  const broke = howItBroke(run, limits);
  const output = new TextDecoder().decode(run.stdout);
  if (broke) return failedReport(stage, `${linter.command}: ${broke}`);
  const findings = linter.parse(output);
  if (!linter.ranOk(run.exitCode) || (run.exitCode !== 0 && findings.length === 0))
    return failedReport(stage, `${linter.command} exited with ${run.exitCode}: ${headOf(run.stdout)}`);
  const scored = counted(findings, submitted, stage.checks).map((f) => ({
    ...f,
    points: linterPoints(stage, f.check),
  }));
  return doneReport(stage, scored, run.stdout.length >= OUTPUT_KEEP ? "(its output was cut at 1 MiB)" : "");
}

function runTool(argv: string[], files: WorkFile[], limits: Limits, deps: BuildDeps): Promise<RunResult> {
  const run = { argv, stdin: null, limits, keepStdout: OUTPUT_KEEP, files, take: [] };
  return runInSlot(deps.slot, deps.tools, run, deps.signal);
}

/** The compile limits, with the stage's own time and memory where it sets them. */
export function stageLimits(stage: ResolvedStage, tools: Toolbox): Limits {
  const base = tools.settings.compile;
  const cpuMs = stage.time ? parseTime(stage.time) : base.cpuMs;
  return {
    ...base,
    cpuMs,
    wallMs: stage.time ? cpuMs * tools.settings.wallFactor + tools.settings.wallSlackMs : base.wallMs,
    memoryKb: stage.memory ? parseMemory(stage.memory) : base.memoryKb,
    fileBytes: Math.max(base.fileBytes, OUTPUT_KEEP),
  };
}

const headOf = (bytes: Uint8Array) => {
  const text = new TextDecoder().decode(bytes.subarray(0, 400)).trim();
  return text.length ? text : "(no output)";
};
