import { createHash } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { layoutProblem } from "../../core/file-layout";
import type { Logger } from "../../core/logger";
import type { FileCache } from "./file-cache";
import type { Claim, JudgeApi, RemoteFile } from "../api/judge-api";
import { normalisePath, type JudgePlan } from "../run/plan";
import type { Slot } from "../sandbox/slots";
import { compile, type CompileResult, type StagedFile, type Toolbox } from "../run/steps";
import { SANDBOX_PATH } from "../toolchains";

/**
 * A submission's program, compiled once per (sources, config, toolchain): a rejudge of a whole problem,
 * or the same code submitted again, takes the built files from the judge's cache instead of compiling.
 * The key is a digest of every source's path and content digest (submitted and from the config), the
 * language, its compile command, the files the cases execute, and the compiler's fingerprint (its
 * resolved path, size and modification time: a toolchain upgrade builds anew). Only successful builds
 * are kept; a compile error is compiled again next time and says the same.
 */
/**
 * What building one record's programs (its own, its checkers) or running its stages needs: its config's
 * files, the slot.
 */
export interface BuildDeps {
  config: Map<string, RemoteFile>;
  cached: (file: RemoteFile) => Promise<string>;
  cache: FileCache;
  slot: Slot;
  tools: Toolbox;
  logger: Logger;
  signal: AbortSignal;
}

export interface ProgramInput extends BuildDeps {
  plan: JudgePlan;
  claim: Claim;
  api: JudgeApi;
}

class CompileFailed extends Error {
  constructor(readonly result: Extract<CompileResult, { ok: false }>) {
    super(result.message);
  }
}

export async function toolchainFingerprint(command: string): Promise<string> {
  const candidates = command.includes("/") ? [command] : SANDBOX_PATH.map((dir) => join(dir, command));
  for (const candidate of candidates) {
    const found = await realpath(candidate).catch(() => null);
    if (!found) continue;
    const info = await stat(found);
    return `${found}:${info.size}:${info.mtimeMs}`;
  }
  return `missing:${command}`;
}

/** The sources in the compile directory: submitted files (a lone one renamed as the plan says) and the config's. */
export function sourceList(plan: JudgePlan, claim: Claim, config: Map<string, RemoteFile>) {
  const submitted = claim.codeFiles.map((f) => ({ ...f, path: normalisePath(f.path) }));
  if (submitted.length === 1 && plan.compileFiles.length === 1 && !config.has(plan.compileFiles[0]))
    submitted[0].path = plan.compileFiles[0];
  const fromConfig: RemoteFile[] = [];
  for (const path of plan.compileFiles) {
    if (submitted.some((f) => f.path === path)) continue;
    const file = config.get(path);
    if (!file)
      return { missing: `the submission has no ${path} (${plan.language} compiles ${plan.compileFiles.join(", ")})` };
    fromConfig.push({ ...file, path });
  }
  // The API refused a submission that cannot be laid out alone; beside the problem's own files it may not.
  const clash = layoutProblem([...submitted, ...fromConfig].map((f) => f.path));
  if (clash) return { missing: `the submission's files and the problem's cannot be laid out together: ${clash}` };
  return { submitted, fromConfig };
}

export async function compileProgram(input: ProgramInput): Promise<CompileResult> {
  const { plan, claim, config, cached, api, cache, slot, tools, logger, signal } = input;
  const sources = sourceList(plan, claim, config);
  if ("missing" in sources && sources.missing) return { ok: false, state: "compile_error", message: sources.missing };
  const { submitted, fromConfig } = sources as Exclude<typeof sources, { missing: string }>;
  // The files the cases execute that no build makes: the config's own (a problem's script).
  const configFiles = new Map<string, string>();
  for (const path of new Set(plan.cases.flatMap((c) => c.executeFiles))) {
    const file = config.get(path);
    if (file) configFiles.set(path, await cached(file));
  }
  const build = async (): Promise<CompileResult> => {
    const staged: StagedFile[] = [];
    for (const f of submitted) staged.push({ path: f.path, mode: 0o644, bytes: await api.download(f) });
    for (const f of fromConfig) staged.push({ path: f.path, mode: 0o644, hostPath: await cached(f) });
    return compile(plan, staged, configFiles, slot, tools, signal);
  };
  if (plan.compileArgs.length === 0) return build();
  const key = createHash("sha256")
    .update(
      JSON.stringify({
        sources: [...submitted, ...fromConfig].map((f) => [f.path, f.digest]).sort(),
        language: plan.language,
        compileArgs: plan.compileArgs,
        executeFiles: [...new Set(plan.cases.flatMap((c) => c.executeFiles))].sort(),
        // With a preset's compilers too: its command may start with the shell or `env`.
        toolchain: await Promise.all(
          [plan.compileArgs[0], ...(plan.preset?.toolchain ?? []).map((tool) => tool.command)].map(
            toolchainFingerprint,
          ),
        ),
      }),
    )
    .digest("hex");
  // Another record's build of the same key may be shared and stopped with that record: then this one
  // builds it itself.
  for (let attempt = 0; ; attempt++) {
    try {
      const built = await cache.built(key, async () => {
        const result = await build();
        if (!result.ok) throw new CompileFailed(result);
        logger.info("program compiled", { key, language: plan.language });
        return result.program.filter((f) => f.bytes).map((f) => ({ path: f.path, mode: f.mode, bytes: f.bytes! }));
      });
      const program: StagedFile[] = built.map((f) => ({ path: f.path, mode: f.mode, hostPath: f.hostPath }));
      for (const [path, hostPath] of configFiles)
        if (!program.some((f) => f.path === path)) program.push({ path, mode: 0o755, hostPath });
      return { ok: true, program };
    } catch (error) {
      if (error instanceof CompileFailed) return error.result;
      if (signal.aborted || attempt > 0) throw error;
    }
  }
}
