import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import { BizError, InputError, ServiceError } from "../../core/errors";
import { serializeConfigJson } from "../../core/config-model/config-json";
import type { RunSettings, SubmissionLimits } from "../../settings/config";
import { rows } from "../../db/statements";
import * as metrics from "../../runtime/metrics";
import { sha256Hex, type BlobStore } from "../../storage/blob-store";
import type { DomainAccess } from "../identity/access";
import type { Problem } from "../problems/problem.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { ProblemConfigFile } from "../problem-configs/problem-config-file.entity";
import { checkFiles, latestVersionFor } from "../submissions/submissions.service";
import { JUDGE_PRIORITY } from "../judging/tasks/judge-queue";
import { Run } from "./run.entity";
import { runConfigOf, type RunMode } from "./run-config";
import { CREATE_RUN_SQL, OWNER_LOCK_SQL, RUN_LIMITS_SQL } from "./runs.sql";
import type { RunSubmitInput, RunView } from "./runs.schemas";
import { runViewOf } from "./run-view";

export interface RunTarget {
  problem: Problem;
  /** The set run through (its window and `runsAllowed` already checked), or null. */
  set: ProblemSet | null;
}

interface FileRow {
  kind: "config" | "code";
  path: string;
  digest: string;
  size: number;
  data?: Uint8Array;
}

/** The mode and the input the form asks for: `samples=true`, or the input (none: an empty stdin). */
function modeOf(input: RunSubmitInput, maxBytes: number): { mode: RunMode; stdin: Uint8Array | null } {
  if (input.samples === "true") {
    if (input.input !== undefined) throw new InputError(["body", "input"], "give either an input or samples=true");
    return { mode: "samples", stdin: null };
  }
  // A form's text comes with \r\n line ends (a browser's, and the multipart encoding's): the program reads \n.
  const stdin = new TextEncoder().encode((input.input ?? "").replace(/\r\n/g, "\n"));
  if (stdin.byteLength > maxBytes)
    throw new InputError(
      ["body", "input"],
      `the input is larger than ${maxBytes} bytes`,
      "value_error.any_str.max_length",
    );
  return { mode: "input", stdin };
}

/** The problem's latest version for the language: its tree and config.json. */
async function latestVersion(em: EntityManager, store: BlobStore, problem: Problem, language: string) {
  const configId = await latestVersionFor(em, problem.id, language);
  const files = await em.find(ProblemConfigFile, { config: configId }, { orderBy: { path: "asc" } });
  const tree = new Map(files.map((f) => [f.path, { path: f.path, digest: f.digest, size: Number(f.size) }]));
  const json = tree.get("config.json");
  if (!json) throw new BizError("ProblemConfigJsonNotFoundError", "the problem's config version has no config.json");
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(await store.get(json.digest)));
  } catch {
    throw new BizError("ProblemConfigJsonNotFoundError", "the problem's config.json cannot be read");
  }
  return { tree, raw };
}

const fileRow = (kind: FileRow["kind"], path: string, data: Uint8Array): FileRow => ({
  kind,
  path,
  digest: sha256Hex(data),
  size: data.byteLength,
  data,
});

/**
 * A 429 while `waiting` of the user's runs are queued or being judged (RUNS_WAITING), or while `perMinute` of
 * them were accepted in the last 60 s (RUNS_PER_MINUTE, 0: no limit; any 60 s holds at most that many).
 */
async function refuseOverLimits(em: EntityManager, userId: string, limits: RunSettings): Promise<void> {
  const [count] = await rows<{ waiting: number; minute: number; retry_ms: number }>(em, RUN_LIMITS_SQL, [userId]);
  if (count.waiting >= limits.waiting)
    throw new ServiceError(429, `${count.waiting} of your runs are still waiting: try again when one is done`, 5);
  if (limits.perMinute > 0 && count.minute >= limits.perMinute) {
    const seconds = Math.max(1, Math.ceil(count.retry_ms / 1000));
    throw new ServiceError(429, `too many runs: try again in ${seconds} s`, seconds);
  }
}

/**
 * Starts a run: the program's files checked as a submission's, the run's config made from the problem's
 * latest version (run-config.ts), the blobs stored, then the run and its files in one statement under the
 * owner's lock, refused when over RUNS_WAITING or RUNS_PER_MINUTE: the lock makes the count and the insert
 * one step for that user, so concurrent requests cannot all see the last free place. The caller enqueues
 * its task after.
 */
export async function createRun(
  em: EntityManager,
  store: BlobStore,
  settings: { runs: RunSettings; submissions: SubmissionLimits },
  access: DomainAccess,
  target: RunTarget,
  input: RunSubmitInput,
): Promise<{ id: string; taskId: string; view: RunView }> {
  const { mode, stdin } = modeOf(input, settings.runs.inputMaxBytes);
  const paths = checkFiles(input.files, settings.submissions);
  // Refused before any work (the config read, the blobs written); checked again under the owner's lock.
  await refuseOverLimits(em, access.userId, settings.runs);
  const { tree, raw } = await latestVersion(em, store, target.problem, input.language);
  const made = runConfigOf(raw, new Set(tree.keys()), input.language, mode);
  const files: FileRow[] = [fileRow("config", "config.json", serializeConfigJson(made.config))];
  if (made.inputPath && stdin) files.push(fileRow("config", made.inputPath, stdin));
  for (const path of made.versionPaths) files.push({ kind: "config", ...tree.get(path)! });
  const code = await Promise.all(input.files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
  for (const [i, data] of code.entries()) files.push(fileRow("code", paths[i], data));
  const fresh = files.filter((f) => f.data);
  for (const f of fresh) await store.put(f.data!, f.digest);
  const blobs = new Map(files.map((f) => [f.digest, f.size]));
  const [id, taskId] = [randomUUID(), randomUUID()];
  const created = await em.transactional(async (tx) => {
    await tx.execute(OWNER_LOCK_SQL, [`runs:${access.userId}`]);
    await refuseOverLimits(tx, access.userId, settings.runs);
    return (
      await rows<{ created_at: string; expires_at: string }>(tx, CREATE_RUN_SQL, [
        JSON.stringify([...blobs].map(([d, s]) => ({ d, s }))),
        id,
        access.domainId,
        target.problem.id,
        target.set?.id ?? null,
        access.userId,
        input.language,
        mode,
        taskId,
        JUDGE_PRIORITY.run,
        settings.runs.keepMinutes,
        JSON.stringify(made.sources),
        JSON.stringify(files.map((f) => ({ k: f.kind, p: f.path, d: f.digest, s: f.size }))),
      ])
    )[0];
  });
  metrics.runs.inc({ mode });
  // As for a submission: a collector that took an old, unused blob of the same digest in between.
  for (const f of fresh) if (!(await store.has(f.digest))) await store.put(f.data!, f.digest);
  const view = runViewOf({
    id,
    problemId: target.problem.id,
    problemSetId: target.set?.id ?? null,
    language: input.language,
    mode,
    state: "queued",
    sources: made.sources,
    cases: [],
    createdAt: new Date(created.created_at),
    judgedAt: null,
    expiresAt: new Date(created.expires_at),
  });
  return { id, taskId, view };
}

/** The caller's own run of this domain (no one else's: a run is as private as a draft). */
export async function findOwnRun(em: EntityManager, access: DomainAccess, runId: string): Promise<Run> {
  const run = await em.findOne(
    Run,
    { id: runId.toLowerCase(), domain: access.domainId, owner: access.userId },
    { refresh: true },
  );
  if (!run) throw new BizError("RecordNotFoundError", "run not found (runs are kept for a while, then removed)");
  return run;
}

/** The caller's own runs among `ids` (a list stream's burst), as views. */
export async function ownRunViews(em: EntityManager, access: DomainAccess, ids: string[]): Promise<RunView[]> {
  const found = await em.find(
    Run,
    { id: { $in: ids }, domain: access.domainId, owner: access.userId },
    { refresh: true },
  );
  return found.map(viewOfRun);
}

export function viewOfRun(run: Run): RunView {
  return runViewOf({
    id: run.id,
    problemId: run.problem.id,
    problemSetId: run.problemSet?.id ?? null,
    language: run.language,
    mode: run.mode as RunMode,
    state: run.state as RunView["state"],
    sources: run.sources,
    cases: run.cases,
    createdAt: run.createdAt,
    judgedAt: run.judgedAt ?? null,
    expiresAt: run.expiresAt,
  });
}
