import type { EntityManager } from "@mikro-orm/postgresql";
import type { JudgingSettings } from "../../../settings/config";
import { Redactor } from "../../../core/redact";
import type { Logger } from "../../../core/logger";
import { isUuid } from "../../../db/addressing";
import { readTimestamp } from "../../../http/timestamps";
import * as metrics from "../../../runtime/metrics";
import type { BlobStore } from "../../../storage/blob-store";
import type { DomainAccess } from "../../identity/access";
import type { JudgeRecord } from "../../records/record.entity";
import {
  capOutput,
  isFinal,
  isWaiting,
  isWorking,
  judgerMayMove,
  type RecordState,
  type StoredCase,
} from "../record-states";
import * as transitions from "../record-transitions";
import { caseLayout } from "./case-layout";
import type { RecordCaseSubmitInput, RecordSubmitInput } from "./judge.schemas";
import { loadForJudging, pinOf, refused } from "./judged-record";

/**
 * The judger's reports, each one statement of record-transitions.ts. When the statement changes
 * nothing, the record is read to say exactly why (or, after a race, the statement is tried once more);
 * nothing here writes a record itself.
 */

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

const raced = () => refused("the record changed while this report was on its way; report again");

/** The report with the redactor's values cut out of its output, and how many were cut. */
export function redactCase<T extends { stdout?: string; stderr?: string }>(
  input: T,
  redactor: Redactor,
): { report: T; hits: number } {
  const stdout = redactor.redact(input.stdout ?? "");
  const stderr = redactor.redact(input.stderr ?? "");
  if (stdout.hits + stderr.hits === 0) return { report: input, hits: 0 };
  const report = { ...input };
  if (input.stdout !== undefined) report.stdout = stdout.text;
  if (input.stderr !== undefined) report.stderr = stderr.text;
  return { report, hits: stdout.hits + stderr.hits };
}

/**
 * The cut every judger's output gets before it is stored (a record's or a run's): the exact values of the
 * server's own secrets, each cut logged with where it was found.
 */
export function caseRedaction(secrets: string[], logger: Logger) {
  const redactor = new Redactor(secrets);
  return <T extends { stdout?: string; stderr?: string }>(body: T, where: Record<string, unknown>): T => {
    const { report, hits } = redactCase(body, redactor);
    if (hits > 0) logger.warn("a secret of the server was cut out of a case's output", { ...where, hits });
    return report;
  };
}

/** What a case report changes in its case (a record's, or a run's: run-judging.service.ts). */
export function casePatch(input: RecordCaseSubmitInput): Partial<StoredCase> {
  const patch: Partial<StoredCase> = {};
  if (input.state !== undefined) patch.state = input.state;
  for (const key of ["score", "timeMs", "memoryKb", "returnCode"] as const)
    if (input[key] !== undefined) patch[key] = input[key];
  if (input.stdout !== undefined) patch.stdout = capOutput(input.stdout);
  if (input.stderr !== undefined) patch.stderr = capOutput(input.stderr);
  return patch;
}

/**
 * A case report: merged into the case (padding earlier cases), totals recomputed, lease extended. A
 * rejudge may have pinned another version since the pin was remembered: it is read again once.
 */
export function reportCase(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  recordId: string,
  index: number,
  input: RecordCaseSubmitInput,
  settings: JudgingSettings,
): Promise<void> {
  return reportCases(em, store, access, recordId, { taskId: input.taskId, cases: [{ ...input, index }] }, settings);
}

/**
 * Several case reports at once (our judge sends them in batches): merged in one statement, all or none.
 * A batch naming a case the config does not have is refused whole.
 */
export async function reportCases(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  recordId: string,
  input: { taskId?: string; cases: (RecordCaseSubmitInput & { index: number })[] },
  settings: JudgingSettings,
): Promise<void> {
  const id = recordId.toLowerCase();
  const cases = input.cases.map((c) => ({ index: c.index, patch: casePatch(c) }));
  const report = { cases, taskId: input.taskId, leaseSeconds: settings.leaseSeconds };
  const highest = Math.max(...cases.map((c) => c.index));
  for (const fresh of [false, true]) {
    const pinned = isUuid(id) ? await pinOf(em, access.domainId, id, fresh) : null;
    if (!pinned) break;
    const layout = await caseLayout(em, store, pinned.configId, pinned.language);
    if (layout && highest >= layout.categories.length) {
      assertHolder(await loadForJudging(em, access.domainId, id), access, input.taskId, new Date());
      throw refused(
        `case ${highest} does not exist: the config has ${layout.categories.length} case(s) for ${pinned.language}`,
      );
    }
    if (await transitions.mergeCases(em, access, id, pinned.configId, report)) {
      for (const c of cases) countCase(c.patch.state);
      return;
    }
  }
  assertHolder(await loadForJudging(em, access.domainId, id), access, input.taskId, new Date());
  throw raced();
}

const countCase = (state: string | undefined) => void (state && metrics.caseVerdicts.inc({ result: state }));

/**
 * The record report: moves the state forward (never back, never out of a final state), and on a final
 * state stamps `judgedAt`, releases the lease and counts an acceptance. Totals come from the cases when
 * there are any; otherwise (say a compile error) from the report. The same final report again is fine.
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
  const report = { ...input, to: input.state ?? null, judgedAt: judgedAt ?? new Date() };
  const moved = async () => {
    if (!isUuid(id) || !(await transitions.report(em, access, id, report, settings.leaseSeconds))) return false;
    if (report.to && isFinal(report.to)) metrics.recordsJudged.inc({ state: report.to });
    return true;
  };
  if (await moved()) return;
  const record = await loadForJudging(em, access.domainId, id);
  assertHolder(record, access, input.taskId, new Date());
  const from = record.state as RecordState;
  const to = input.state ?? from;
  if (!judgerMayMove(from, to)) throw refused(`the record cannot go from ${from} to ${to}`);
  if (isFinal(from)) return; // the same final report again: nothing to do
  if (!(await moved())) throw raced();
}
