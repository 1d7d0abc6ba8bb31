import type { ResolvedStage } from "../../core/config-model/config-stages";
import type { StageReport } from "../../core/judge-protocol";
import type { Claim, RemoteFile } from "../api/judge-api";
import { sourceList, type BuildDeps } from "../cache/program-cache";
import { normalisePath, type JudgePlan } from "../run/plan";
import { runStages, type StageSources } from "./run-stages";

/**
 * A record's stages while it is judged: those before the tests run after compiling, those after the tests
 * once the cases are in (or all at once after a compile error, the `always` ones only); each report the
 * judge sends carries every stage done so far, in the config's order.
 */
export class StageBook {
  private readonly done = new Map<string, StageReport>();
  private sources?: Promise<StageSources>;

  constructor(
    private readonly plan: JudgePlan,
    private readonly compiled: boolean,
    private readonly load: () => Promise<StageSources>,
  ) {}

  /** Runs the stages at those points; every stage done so far, in config order. */
  async run(at: ResolvedStage["at"][], deps: BuildDeps): Promise<StageReport[]> {
    const group = this.plan.stages.filter((stage) => at.includes(stage.at));
    if (group.length > 0) {
      this.sources ??= this.load();
      for (const report of await runStages(group, this.compiled, await this.sources, deps))
        this.done.set(report.name, report);
    }
    return this.plan.stages.flatMap((stage) => this.done.get(stage.name) ?? []);
  }

  /** A state report's `stages` field when stages ran at those points; nothing otherwise. */
  async report(at: ResolvedStage["at"][], deps: BuildDeps): Promise<{ stages?: StageReport[] }> {
    if (!this.plan.stages.some((stage) => at.includes(stage.at))) return {};
    return { stages: await this.run(at, deps) };
  }
}

/** The sources as the compile step lays them out, on this machine's disk (the judge's file cache). */
export async function stageSources(
  plan: JudgePlan,
  claim: Claim,
  config: Map<string, RemoteFile>,
  cached: (file: RemoteFile) => Promise<string>,
): Promise<StageSources> {
  const listed = sourceList(plan, claim, config);
  // Files the compile step could not lay out (it said so): the stages see the submission as it came.
  const submitted =
    "submitted" in listed && listed.submitted
      ? listed.submitted
      : claim.codeFiles.map((f) => ({ ...f, path: normalisePath(f.path) }));
  const fromConfig = "fromConfig" in listed && listed.fromConfig ? listed.fromConfig : [];
  const onDisk = (files: RemoteFile[]) =>
    Promise.all(files.map(async (f) => ({ path: f.path, digest: f.digest, hostPath: await cached(f) })));
  return { submitted: await onDisk(submitted), fromConfig: await onDisk(fromConfig) };
}
