import type { EntityManager } from "@mikro-orm/postgresql";
import type { Redactor } from "../../core/redact";
import { LockMode } from "@mikro-orm/core";
import type { JudgingSettings } from "../../config";
import { BizError } from "../../core/errors";
import { isUuid } from "../../db/addressing";
import { readTimestamp } from "../../http/timestamps";
import type { DomainAccess } from "../identity/access";
import type { BlobStore } from "../../storage/blob-store";
import { JudgeRecord } from "../records/record.entity";
import {
  aggregate,
  capOutput,
  isFinal,
  isWaiting,
  isWorking,
  judgerMayMove,
  pendingCase,
  type RecordState,
  type StoredCase,
} from "../records/record-states";
import { caseLayout } from "./case-layout";
import { filesOf, findRecord, isWorkingJudger } from "../records/records.service";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import { treeOf } from "../problem-configs/versions.service";
import type { JudgerCredentialsView, RecordCaseSubmitInput, RecordSubmitInput } from "./judge.schemas";
import { claimWaiting, mergeCase, moveState } from "./judge-statements";
import * as metrics from "../../runtime/metrics";
import { credentialsOfClaim, judgerCredentials } from "./judger-credentials";
import { row } from "../../db/statements";
import { BoundedMap } from "../../runtime/bounded-map";

const refused = (message: string) => new BizError("Error", message);

const leaseUntil = (settings: JudgingSettings) => new Date(Date.now() + settings.leaseSeconds * 1000);

/** Pinned config version and language of records judged here, for checking a case index without a read. */
const pins = new BoundedMap<string, { configId: string | null; language: string }>(10_000);

function pin(id: string, configId: string | null, language: string) {
  pins.set(id, { configId, language });
}

/**
 * Claims a waiting record for the caller with the task id the queue handed out; the answer is what
 * the judger needs. One conditional UPDATE decides: of two judgers racing for one task exactly one
 * gets the row. A judger repeating its own successful claim (a retry after a lost answer) gets it
 * again with a fresh lease.
 */
export async function claimForJudger(
  em: EntityManager,
  access: DomainAccess,
  recordId: string,
  taskId: string,
  settings: JudgingSettings,
  publicUrl: string,
): Promise<JudgerCredentialsView> {
  const id = recordId.toLowerCase();
  if (isUuid(taskId)) {
    const claimed = await claimWaiting(em, access, id, taskId.toLowerCase(), settings.leaseSeconds);
    if (claimed) {
      pin(id, claimed.config_id, claimed.language);
      metrics.judgeClaims.inc();
    }
    if (claimed?.config_id) return credentialsOfClaim(claimed, access.domainId, publicUrl);
    // Claimed, but its config version went away meanwhile: answered as the ORM path always did.
    if (claimed) return judgerCredentials(em, await loadForJudging(em, access.domainId, id), publicUrl);
  }
  return judgerCredentials(em, await reclaimRecord(em, access, id, taskId, settings), publicUrl);
}

/** A claim the first-time UPDATE refused: a repeat of the caller's own claim, or the reason it is refused. */
async function reclaimRecord(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  taskId: string,
  settings: JudgingSettings,
): Promise<JudgeRecord> {
  const record = await loadForJudging(em, access.domainId, id);
  if (!taskId || record.taskId !== taskId.toLowerCase())
    throw refused("this task is not the record's current task (it was re-queued or never existed)");
  if (!record.config) throw refused("the record's config version no longer exists; it cannot be judged");
  if (isWorking(record.state) && record.judger?.id === access.userId) {
    record.leaseExpiresAt = leaseUntil(settings);
    await em.flush();
    return record;
  }
  throw refused(
    isFinal(record.state)
      ? `the record is already judged (${record.state})`
      : "the record is already claimed by another judger",
  );
}

/** The record for a claim (with what the credentials show) or, locked and bare, for a report. */
async function loadForJudging(em: EntityManager, domainId: string, id: string, lock = false): Promise<JudgeRecord> {
  const record = lock
    ? await em.findOne(JudgeRecord, { id, domain: domainId }, { refresh: true, lockMode: LockMode.PESSIMISTIC_WRITE })
    : await em.findOne(JudgeRecord, { id, domain: domainId }, { populate: ["config", "problem"], refresh: true });
  if (!record) throw new BizError("RecordNotFoundError", "record not found");
  return record;
}

/**
 * What the judger holding a record may fetch while it judges: the pinned config version's files and
 * the submitted files (each with its digest).
 */
export async function filesForHolder(em: EntityManager, access: DomainAccess, recordId: string) {
  const record = await findRecord(em, access.domainId, recordId);
  if (!isWorkingJudger(access, record))
    throw refused("only the judger holding this record's lease may fetch its files");
  const version = record.config ? await em.findOne(ProblemConfig, { id: record.config.id }) : null;
  if (!version) throw new BizError("ProblemConfigNotFoundError", "the record's config version no longer exists");
  return { record, configFiles: await treeOf(em, version), codeFiles: await filesOf(em, record) };
}

/**
 * Reports come only from the judger holding the record's current lease (and, when the report names a
 * task, for the current task). After the final report the same judger may still deliver case reports
 * that were on their way, so concurrent senders (Horse's Tiger) lose nothing.
 */
function assertHolder(record: JudgeRecord, access: DomainAccess, taskId: string | undefined, now: Date): void {
  if (isWaiting(record.state) || record.judger?.id !== access.userId)
    throw refused("the record is not claimed by you (claim it first, or it was given to another judger)");
  if (taskId !== undefined && taskId.toLowerCase() !== record.taskId)
    throw refused("this task was superseded: the record was re-queued");
  if (isWorking(record.state) && record.leaseExpiresAt && record.leaseExpiresAt.getTime() <= now.getTime()) {
    throw refused("your lease on this record has expired; it goes back to the queue");
  }
}

/** The report with the redactor's values cut out of its output, and how many were cut. */
export function redactCase(
  input: RecordCaseSubmitInput,
  redactor: Redactor,
): { report: RecordCaseSubmitInput; hits: number } {
  const stdout = redactor.redact(input.stdout ?? "");
  const stderr = redactor.redact(input.stderr ?? "");
  if (stdout.hits + stderr.hits === 0) return { report: input, hits: 0 };
  const report = { ...input };
  if (input.stdout !== undefined) report.stdout = stdout.text;
  if (input.stderr !== undefined) report.stderr = stderr.text;
  return { report, hits: stdout.hits + stderr.hits };
}

/** What a case report changes in its case. */
function casePatch(input: RecordCaseSubmitInput): Partial<StoredCase> {
  const patch: Partial<StoredCase> = {};
  if (input.state !== undefined) patch.state = input.state;
  for (const key of ["score", "timeMs", "memoryKb", "returnCode"] as const)
    if (input[key] !== undefined) patch[key] = input[key];
  if (input.stdout !== undefined) patch.stdout = capOutput(input.stdout);
  if (input.stderr !== undefined) patch.stderr = capOutput(input.stderr);
  return patch;
}

/**
 * The record's pinned version and language: remembered from its claim, else read. A rejudge may pin
 * another version: the case statement checks the version, and a mismatch takes the slow path, which
 * remembers the new one.
 */
async function pinOf(em: EntityManager, domainId: string, id: string) {
  const known = pins.get(id);
  if (known) return known;
  const found = await row<{ config_id: string | null; language: string }>(
    em,
    "select config_id, language from records where id = ? and domain_id = ?",
    [id, domainId],
  );
  if (found) pin(id, found.config_id, found.language);
  return found ? pins.get(id)! : null;
}

/** A case report: merged into the case (padding earlier cases), totals recomputed, lease extended. */
export async function reportCase(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  recordId: string,
  index: number,
  input: RecordCaseSubmitInput,
  settings: JudgingSettings,
): Promise<void> {
  const id = recordId.toLowerCase();
  const patch = casePatch(input);
  const pinned = isUuid(id) ? await pinOf(em, access.domainId, id) : null;
  const layout = pinned && (await caseLayout(em, store, pinned.configId, pinned.language));
  if (pinned && (!layout || index < layout.categories.length)) {
    const report = { index, patch, taskId: input.taskId, leaseSeconds: settings.leaseSeconds };
    if (await mergeCase(em, access, id, pinned.configId, report)) return countCase(patch.state);
  }
  // Refused above, or a case the config does not have: decided (and explained) on the locked record.
  await em.transactional(async (tx) => {
    const record = await loadForJudging(tx, access.domainId, id, true);
    pin(id, record.config?.id ?? null, record.language);
    const now = new Date();
    assertHolder(record, access, input.taskId, now);
    const layout = await caseLayout(tx, store, record.config?.id ?? null, record.language);
    if (layout && index >= layout.categories.length)
      throw refused(
        `case ${index} does not exist: the config has ${layout.categories.length} case(s) for ${record.language}`,
      );
    const cases = record.cases.map((c) => ({ ...c }));
    while (cases.length <= index) cases.push(pendingCase());
    Object.assign(cases[index], patch);
    record.cases = cases;
    Object.assign(record, aggregate(cases));
    if (isWorking(record.state)) record.leaseExpiresAt = leaseUntil(settings);
    await tx.flush();
  });
  countCase(patch.state);
}

const countCase = (state: string | undefined) => void (state && metrics.caseVerdicts.inc({ result: state }));

/**
 * The record report: moves the state forward (never back, never out of a final state), and on a final
 * state stamps `judgedAt`, releases the lease and counts an acceptance. Totals come from the cases when
 * there are any; otherwise (say a compile error) from the report.
 */
export async function reportRecord(
  em: EntityManager,
  access: DomainAccess,
  recordId: string,
  input: RecordSubmitInput,
  settings: JudgingSettings,
): Promise<void> {
  const judgedAt = input.judgedAt === undefined ? undefined : readTimestamp(input.judgedAt, ["body", "judgedAt"]);
  const id = recordId.toLowerCase();
  const report = {
    ...input,
    to: input.state ?? null,
    judgedAt: judgedAt ?? new Date(),
    leaseSeconds: settings.leaseSeconds,
  };
  if (isUuid(id) && (await moveState(em, access, id, report))) {
    if (report.to && isFinal(report.to)) metrics.recordsJudged.inc({ state: report.to });
    return;
  }
  // Refused above, or a repeated final report: decided (and explained) on the locked record.
  let judged = null as string | null;
  await em.transactional(async (tx) => {
    const record = await loadForJudging(tx, access.domainId, id, true);
    assertHolder(record, access, input.taskId, new Date());
    const from = record.state as RecordState;
    const to = input.state ?? from;
    if (!judgerMayMove(from, to)) throw refused(`the record cannot go from ${from} to ${to}`);
    if (isFinal(from)) return; // the same final report again: nothing to do
    record.state = to;
    if (record.cases.length > 0) Object.assign(record, aggregate(record.cases));
    else
      for (const key of ["score", "timeMs", "memoryKb"] as const)
        if (input[key] !== undefined) record[key] = input[key];
    if (!isFinal(to)) {
      record.leaseExpiresAt = leaseUntil(settings);
      await tx.flush();
      return;
    }
    record.judgedAt = judgedAt ?? new Date();
    record.leaseExpiresAt = null;
    await tx.flush();
    if (to === "accepted") {
      await tx.execute("update problems set num_accept = num_accept + 1 where id = ?", [record.problem?.id ?? null]);
      if (record.problemSet)
        await tx.execute("update problem_sets set num_accept = num_accept + 1 where id = ?", [record.problemSet.id]);
    }
    judged = to;
  });
  if (judged) metrics.recordsJudged.inc({ state: judged });
}
