import { createHash } from "node:crypto";
import type { ResolvedStage } from "../../core/config-model/config-stages";
import type { RemoteFile } from "../api/judge-api";
import { toolchainFingerprint } from "../cache/program-cache";
import { LINTERS } from "./linters";

/** A record's sources as the stages see them, on this machine's disk. */
export interface StageSources {
  /** The submission's files as laid out in /work (a lone file under the language's name). */
  submitted: { path: string; digest: string; hostPath: string }[];
  /** The config's compile files beside them (a header of the problem's). */
  fromConfig: { path: string; digest: string; hostPath: string }[];
}

/** Bumped when what a stage reports for the same input changes (the parsers, the deductions, the layout). */
const STAGE_LOGIC = 2;

/**
 * A stage's result is the same for the same sources (submitted and the config's), the same stage settings,
 * the same files of the config it runs (a command's script) and the same tool: the tool's fingerprint (its
 * resolved path, size and time) makes an upgraded clang-tidy run anew.
 */
export async function stageCacheKey(
  stage: ResolvedStage,
  sources: StageSources,
  config: Map<string, RemoteFile>,
): Promise<string> {
  const tool =
    stage.kind === "keywords"
      ? "keywords"
      : stage.kind === "command"
        ? await toolchainFingerprint(stage.command?.[0] ?? "")
        : await toolchainFingerprint(LINTERS[stage.kind].command);
  const scripts = (stage.files ?? []).map((path) => [path, config.get(path.replace(/^(\.\/)+/, ""))?.digest ?? null]);
  return createHash("sha256")
    .update(
      JSON.stringify({
        logic: STAGE_LOGIC,
        stage,
        sources: [...sources.submitted, ...sources.fromConfig].map((f) => [f.path, f.digest]).sort(),
        scripts,
        tool,
      }),
    )
    .digest("hex");
}
