import type { EntityManager } from "@mikro-orm/postgresql";
import { LockMode } from "@mikro-orm/core";
import type { JudgingSettings } from "../../config";
import { BizError } from "../../errors";
import { isUuid } from "../../db/addressing";
import { readTimestamp } from "../../http/timestamps";
import type { DomainAccess } from "../../auth/access";
import type { BlobStore } from "../../storage/blob-store";
import type { Domain } from "../domains/domain.entity";
import { JudgeRecord } from "./record.entity";
import { aggregate, capOutput, isFinal, isWaiting, isWorking, judgerMayMove, pendingCase, WAITING_SQL, type RecordState } from "./record-states";
import { caseLayout } from "./case-layout";
import { filesOf, findRecord, isWorkingJudger } from "./records.service";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import { treeOf } from "../problem-configs/versions.service";
import type { RecordCaseSubmitInput, RecordSubmitInput } from "./records.schemas";

const refused = (message: string) => new BizError("Error", message);

const leaseUntil = (settings: JudgingSettings) => new Date(Date.now() + settings.leaseSeconds * 1000);

/**
 * Claims a waiting record for the caller with the task id the queue handed out. One conditional
 * UPDATE decides: of two judgers racing for one task exactly one gets the row. A judger repeating its
 * own successful claim (a retry after a lost answer) gets it again with a fresh lease.
 */
export async function claimRecord(em: EntityManager, access: DomainAccess, recordId: string, taskId: string, settings: JudgingSettings): Promise<JudgeRecord> {
  const id = recordId.toLowerCase();
  if (isUuid(taskId)) {
    const claimed = await em.execute<{ id: string }[]>(
      `update records set state = 'fetched', judger_id = ?, attempts = attempts + 1, updated_at = now(),
              lease_expires_at = now() + make_interval(secs => ?)
        where id = ? and domain_id = ? and task_id = ? and state in ${WAITING_SQL} and config_id is not null
        returning id`,
      [access.user.id, settings.leaseSeconds, id, access.domain.id, taskId.toLowerCase()],
    );
    if (claimed.length === 1) return loadForJudging(em, access.domain, id);
  }
  const record = await loadForJudging(em, access.domain, id);
  if (!taskId || record.taskId !== taskId.toLowerCase()) throw refused("this task is not the record's current task (it was re-queued or never existed)");
  if (!record.config) throw refused("the record's config version no longer exists; it cannot be judged");
  if (isWorking(record.state) && record.judger?.id === access.user.id) {
    record.leaseExpiresAt = leaseUntil(settings);
    await em.flush();
    return record;
  }
  throw refused(isFinal(record.state) ? `the record is already judged (${record.state})` : "the record is already claimed by another judger");
}

/** The record for a claim (with what the credentials show) or, locked and bare, for a report. */
async function loadForJudging(em: EntityManager, domain: Domain, id: string, lock = false): Promise<JudgeRecord> {
  const record = lock
    ? await em.findOne(JudgeRecord, { id, domain }, { refresh: true, lockMode: LockMode.PESSIMISTIC_WRITE })
    : await em.findOne(JudgeRecord, { id, domain }, { populate: ["config", "problem"], refresh: true });
  if (!record) throw new BizError("RecordNotFoundError", "record not found");
  return record;
}

/**
 * What the judger holding a record may fetch while it judges: the pinned config version's files and
 * the submitted files (each with its digest).
 */
export async function filesForHolder(em: EntityManager, access: DomainAccess, recordId: string) {
  const record = await findRecord(em, access.domain, recordId);
  if (!isWorkingJudger(access, record)) throw refused("only the judger holding this record's lease may fetch its files");
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
  if (isWaiting(record.state) || record.judger?.id !== access.user.id) throw refused("the record is not claimed by you (claim it first, or it was given to another judger)");
  if (taskId !== undefined && taskId.toLowerCase() !== record.taskId) throw refused("this task was superseded: the record was re-queued");
  if (isWorking(record.state) && record.leaseExpiresAt && record.leaseExpiresAt.getTime() <= now.getTime()) {
    throw refused("your lease on this record has expired; it goes back to the queue");
  }
}

/** A case report: merged into the case (padding earlier cases), totals recomputed, lease extended. */
export async function reportCase(
  em: EntityManager, store: BlobStore, access: DomainAccess, recordId: string, index: number, input: RecordCaseSubmitInput, settings: JudgingSettings,
): Promise<void> {
  await em.transactional(async (tx) => {
    const record = await loadForJudging(tx, access.domain, recordId.toLowerCase(), true);
    const now = new Date();
    assertHolder(record, access, input.taskId, now);
    const layout = await caseLayout(tx, store, record.config?.id ?? null, record.language);
    if (layout && index >= layout.categories.length) throw refused(`case ${index} does not exist: the config has ${layout.categories.length} case(s) for ${record.language}`);
    const cases = record.cases.map((c) => ({ ...c }));
    while (cases.length <= index) cases.push(pendingCase());
    const target = cases[index];
    if (input.state !== undefined) target.state = input.state;
    for (const key of ["score", "timeMs", "memoryKb", "returnCode"] as const) if (input[key] !== undefined) target[key] = input[key];
    if (input.stdout !== undefined) target.stdout = capOutput(input.stdout);
    if (input.stderr !== undefined) target.stderr = capOutput(input.stderr);
    record.cases = cases;
    Object.assign(record, aggregate(cases));
    if (isWorking(record.state)) record.leaseExpiresAt = leaseUntil(settings);
    await tx.flush();
  });
}

/**
 * The record report: moves the state forward (never back, never out of a final state), and on a final
 * state stamps `judgedAt`, releases the lease and counts an acceptance. Totals come from the cases when
 * there are any; otherwise (say a compile error) from the report.
 */
export async function reportRecord(em: EntityManager, access: DomainAccess, recordId: string, input: RecordSubmitInput, settings: JudgingSettings): Promise<void> {
  const judgedAt = input.judgedAt === undefined ? undefined : readTimestamp(input.judgedAt, ["body", "judgedAt"]);
  await em.transactional(async (tx) => {
    const record = await loadForJudging(tx, access.domain, recordId.toLowerCase(), true);
    assertHolder(record, access, input.taskId, new Date());
    const from = record.state as RecordState;
    const to = input.state ?? from;
    if (!judgerMayMove(from, to)) throw refused(`the record cannot go from ${from} to ${to}`);
    if (isFinal(from)) return; // the same final report again: nothing to do
    record.state = to;
    if (record.cases.length > 0) Object.assign(record, aggregate(record.cases));
    else for (const key of ["score", "timeMs", "memoryKb"] as const) if (input[key] !== undefined) record[key] = input[key];
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
      if (record.problemSet) await tx.execute("update problem_sets set num_accept = num_accept + 1 where id = ?", [record.problemSet.id]);
    }
  });
}
