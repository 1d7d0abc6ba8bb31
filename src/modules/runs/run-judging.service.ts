import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import { BizError } from "../../core/errors";
import { isUuid } from "../../db/addressing";
import { row, rows } from "../../db/statements";
import { isoTime } from "../../http/schemas";
import type { JudgingSettings } from "../../settings/config";
import type { DomainAccess } from "../identity/access";
import { isFinal, pendingCase, type StoredCase } from "../judging/record-states";
import { casePatch } from "../judging/protocol/judge-reports.service";
import type {
  JudgerCredentialsView,
  RecordCaseSubmitInput,
  RecordSubmitInput,
} from "../judging/protocol/judge.schemas";
import { commitIdOf } from "../problem-configs/versions.service";
import {
  CLAIM_RUN_SQL,
  FINISH_RUN_SQL,
  HELD_CASES_SQL,
  HOLDS_RUN_SQL,
  RELEASE_RUN_SQL,
  RENEW_RUN_SQL,
  RUN_FILES_SQL,
  RUN_STATE_SQL,
  WRITE_CASES_SQL,
} from "./runs.sql";

/**
 * A run judged through the judge protocol (docs/api.md "Runs"): the record's calls under /runs, fenced the
 * same way: only the judger holding the run's current task and a live lease moves it or reads its files.
 */

const refused = (message: string) => new BizError("Error", message);

export interface RunFile {
  kind: "config" | "code";
  path: string;
  digest: string;
  size: number;
}

export const runUrlOf = (publicUrl: string, domainId: string, runId: string) =>
  `${publicUrl}/api/v1/domains/${domainId}/runs/${runId}`;

/** Why a judger's call on a run changed nothing. */
async function refusal(em: EntityManager, domainId: string, id: string): Promise<BizError> {
  const run = await row<{ state: string }>(em, RUN_STATE_SQL, [id, domainId]);
  if (!run) return new BizError("RecordNotFoundError", "run not found (it may have expired)");
  return refused(
    run.state === "queued"
      ? "this task is not the run's current task, or the run is not claimed by you"
      : run.state === "running"
        ? "the run is held by another judger or task, or your lease lapsed"
        : `the run is already ${run.state}`,
  );
}

const holder = (access: DomainAccess, id: string, taskId: string) => [id, access.domainId, taskId, access.userId];

/** Claims the run with its task, once (a repeated claim is refused, as a record's); the credentials. */
export async function claimRun(
  em: EntityManager,
  access: DomainAccess,
  runId: string,
  taskId: string,
  settings: JudgingSettings,
  publicUrl: string,
): Promise<JudgerCredentialsView> {
  const [id, task] = [runId.toLowerCase(), taskId.toLowerCase()];
  if (!isUuid(task)) throw refused("this task is not the run's current task");
  type Claimed = { id: string; language: string; lease_expires_at: string };
  const claimed = await row<Claimed>(em, CLAIM_RUN_SQL, [
    access.userId,
    settings.leaseSeconds,
    id,
    access.domainId,
    task,
  ]);
  if (!claimed) throw await refusal(em, access.domainId, id);
  const files = await rows<RunFile>(em, RUN_FILES_SQL, [id]);
  const base = runUrlOf(publicUrl, access.domainId, id);
  const link = (f: RunFile) => ({
    path: f.path,
    digest: f.digest,
    size: Number(f.size),
    url: `${base}/judge/files/${f.digest}`,
  });
  const config = files.filter((f) => f.kind === "config");
  const code = files.filter((f) => f.kind === "code");
  return {
    problemConfigRepoName: `joj-run-config-${id}`,
    problemConfigCommitId: commitIdOf(config),
    recordRepoName: `joj-run-${id}`,
    recordCommitId: commitIdOf(code),
    taskId: task,
    language: claimed.language,
    leaseExpiresAt: isoTime(new Date(claimed.lease_expires_at)),
    problemConfigId: id,
    configArchiveUrl: `${base}/judge/config`,
    codeArchiveUrl: `${base}/judge/code`,
    configFiles: config.map(link),
    codeFiles: code.map(link),
  };
}

/** The holder gives the run back (a judger stopping): queued again under a new task. */
export async function releaseRun(em: EntityManager, access: DomainAccess, runId: string, taskId: string) {
  const id = runId.toLowerCase();
  // Not a UUID: no task of any run (PostgreSQL would refuse the comparison, a 500 instead of this refusal).
  if (!isUuid(taskId)) throw await refusal(em, access.domainId, id);
  const next = randomUUID();
  const released = await row<{ priority: number }>(em, RELEASE_RUN_SQL, [
    next,
    ...holder(access, id, taskId.toLowerCase()),
  ]);
  if (!released) throw await refusal(em, access.domainId, id);
  return { recordId: id, domainId: access.domainId, taskId: next };
}

/**
 * The holder's state report: a working state renews the lease; a final one ends the run, `done` whatever the
 * program did, `failed` when the judge could not judge it.
 */
export async function reportRun(
  em: EntityManager,
  access: DomainAccess,
  runId: string,
  body: RecordSubmitInput,
  settings: JudgingSettings,
): Promise<boolean> {
  const id = runId.toLowerCase();
  const task = (body.taskId ?? "").toLowerCase();
  if (!isUuid(task)) throw refused("a run's report names its task (taskId)");
  const final = body.state !== undefined && isFinal(body.state);
  const changed = final
    ? await row(em, FINISH_RUN_SQL, [body.state === "failed" ? "failed" : "done", ...holder(access, id, task)])
    : await row(em, RENEW_RUN_SQL, [settings.leaseSeconds, ...holder(access, id, task)]);
  if (!changed) throw await refusal(em, access.domainId, id);
  return final;
}

/** Case reports merged into the run's cases (padding earlier ones), under the row's lock; the lease renewed. */
export async function reportRunCases(
  em: EntityManager,
  access: DomainAccess,
  runId: string,
  taskId: string | undefined,
  reports: (RecordCaseSubmitInput & { index: number })[],
  settings: JudgingSettings,
): Promise<void> {
  const id = runId.toLowerCase();
  const task = (taskId ?? "").toLowerCase();
  if (!isUuid(task)) throw refused("a run's report names its task (taskId)");
  const done = await em.transactional(async (tx) => {
    const held = await row<{ cases: (StoredCase | null)[]; n: number }>(tx, HELD_CASES_SQL, holder(access, id, task));
    if (!held) return false;
    const maxCases = held.n;
    const cases = [...held.cases];
    for (const report of reports) {
      if (report.index >= maxCases) throw refused(`the run has ${maxCases} case(s); there is no case ${report.index}`);
      while (cases.length <= report.index) cases.push(null);
      const merged: StoredCase = { ...(cases[report.index] ?? pendingCase()), ...casePatch(report) };
      cases[report.index] = merged;
    }
    await tx.execute(WRITE_CASES_SQL, [JSON.stringify(cases), settings.leaseSeconds, id]);
    return true;
  });
  if (!done) throw await refusal(em, access.domainId, id);
}

/** The run's files, for the judger holding it (its lease live) only. */
export async function filesForRunHolder(em: EntityManager, access: DomainAccess, runId: string): Promise<RunFile[]> {
  const id = runId.toLowerCase();
  const held = await row(em, HOLDS_RUN_SQL, [id, access.domainId, access.userId]);
  if (!held) throw refused("only the judger holding this run's lease may fetch its files");
  return (await rows<RunFile>(em, RUN_FILES_SQL, [id])).map((f) => ({ ...f, size: Number(f.size) }));
}
