import type { EntityManager } from "@mikro-orm/postgresql";
import { row } from "../../db/statements";
import type { DomainAccess } from "../identity/access";
import {
  FINAL_STATES,
  judgerMayMove,
  pendingCase,
  RECORD_STATES,
  type RecordState,
  type StoredCase,
  WAITING_STATES,
  WORKING_STATES,
} from "./record-states";
import * as sql from "./record-transitions.sql";
import type { StageReport } from "../../core/judge-protocol";

/**
 * The only module that changes a record's state. Who may move a record from what to what is the
 * table below; each move is one conditional statement (record-transitions.sql.ts) whose WHERE clause
 * is built from the table and carries the mover's fencing (the task id, the holder, the lease), so a
 * move either happens whole or changes nothing, whatever runs at the same moment.
 */
export const TRANSITIONS = {
  /** A submission is saved waiting (submissions.service.ts inserts it as `queueing`). */
  submit: { by: "the submitter", from: [] as RecordState[], to: ["queueing"] as RecordState[] },
  /** The judger names the record's current task: leased to it. */
  claim: { by: "a judger", from: WAITING_STATES, to: ["fetched"] as RecordState[] },
  /** The holder reports: forward only (judgerMayMove), a final state is final. */
  report: { by: "the lease holder", from: WORKING_STATES, to: [...WORKING_STATES, ...FINAL_STATES] },
  /** The holder gives the record back (a judge stopping): waiting again, the attempt not counted. */
  release: { by: "the lease holder", from: WORKING_STATES, to: ["queueing"] as RecordState[] },
  /** The lease lapsed with attempts left: waiting again under a new task id. */
  requeue: { by: "the reconciler", from: WORKING_STATES, to: ["queueing"] as RecordState[] },
  /** The lease lapsed with no attempt left. */
  exhaust: { by: "the reconciler", from: WORKING_STATES, to: ["failed"] as RecordState[] },
  /** A waiting record without a live job: queued again under a new task id. */
  reenqueue: { by: "the reconciler", from: WAITING_STATES, to: ["queueing"] as RecordState[] },
  /** Staff judge a record again, from any state. */
  rejudge: {
    by: "staff (record.rejudge)",
    from: [...RECORD_STATES] as RecordState[],
    to: ["queueing"] as RecordState[],
  },
} as const;
export type TransitionKind = keyof typeof TRANSITIONS;

/** Whether `kind` may move a record from `from` to `to`. */
export function mayMove(kind: TransitionKind, from: RecordState, to: RecordState): boolean {
  const rule = TRANSITIONS[kind];
  if (!(rule.from as readonly RecordState[]).includes(from) || !(rule.to as readonly RecordState[]).includes(to))
    return false;
  return kind === "report" ? judgerMayMove(from, to) : true;
}

const CLAIM = sql.claimSql(TRANSITIONS.claim.from);
const CASE = sql.caseSql(WAITING_STATES, WORKING_STATES);
const RELEASE = sql.releaseSql(TRANSITIONS.release.from);
const REQUEUE = sql.requeueLapsedSql(TRANSITIONS.requeue.from);
const EXHAUST = sql.exhaustSql(TRANSITIONS.exhaust.from);
const REENQUEUE = sql.reenqueueSql(TRANSITIONS.reenqueue.from);
const reports = new Map<RecordState | null, string>();

export interface ClaimedRow {
  id: string;
  problem_id: string | null;
  commit_id: string | null;
  task_id: string;
  language: string;
  lease_expires_at: string;
  config_id: string | null;
  config_commit_id: string | null;
  problem_group_id: string | null;
  config_files: { path: string; digest: string; size: number }[];
  code_files: { path: string; digest: string; size: number }[];
}

/** claim: a first claim with the current task id, and what the answer lists; null: not claimed. */
export function claim(em: EntityManager, access: DomainAccess, id: string, taskId: string, leaseSeconds: number) {
  return row<ClaimedRow>(em, CLAIM, [access.userId, leaseSeconds, id, access.domainId, taskId]);
}

const PENDING = JSON.stringify(pendingCase());

/** Case reports of the holder merged in, all or none (the state unchanged); false when a check fails. */
export async function mergeCases(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  configId: string | null,
  report: { cases: { index: number; patch: object }[]; taskId?: string; leaseSeconds: number },
): Promise<boolean> {
  const task = report.taskId?.toLowerCase() ?? null;
  const patches: Record<number, object> = {};
  for (const { index, patch } of report.cases) patches[index] = { ...patches[index], ...patch };
  const highest = Math.max(...report.cases.map((c) => c.index));
  const values = [id, access.domainId, access.userId, task, task, configId, PENDING, JSON.stringify(patches)];
  return (await row(em, CASE, [...values, highest, report.leaseSeconds])) !== null;
}

/** report: the holder moves the record forward (null: keeps its state); false when refused. */
export async function report(
  em: EntityManager,
  access: DomainAccess,
  id: string,
  input: {
    to: RecordState | null;
    score?: number;
    timeMs?: number;
    memoryKb?: number;
    judgedAt: Date;
    taskId?: string;
    /** The record's stages, replacing what it had; absent: kept. */
    stages?: StageReport[];
  },
  leaseSeconds: number,
): Promise<boolean> {
  let statement = reports.get(input.to);
  if (statement === undefined) {
    statement = sql.reportSql(input.to, TRANSITIONS.report.from, FINAL_STATES);
    reports.set(input.to, statement);
  }
  if (statement === "") return false;
  const task = input.taskId?.toLowerCase() ?? null;
  const last = input.to !== null && FINAL_STATES.includes(input.to) ? input.judgedAt : leaseSeconds;
  const totals = [input.score ?? null, input.timeMs ?? null, input.memoryKb ?? null];
  const stages = input.stages === undefined ? null : JSON.stringify(input.stages);
  const values = [stages, id, access.domainId, access.userId, task, task, ...totals, last];
  return (await row(em, statement, values)) !== null;
}

/** release: the holder's record waits again under `nextTask`; null when the caller does not hold it. */
export function release(em: EntityManager, access: DomainAccess, id: string, taskId: string, nextTask: string) {
  return row<{ language: string; priority: number }>(em, RELEASE, [
    nextTask,
    id,
    access.domainId,
    access.userId,
    taskId,
  ]);
}

/** requeue: a lapsed lease, under `nextTask`; null when the record moved meanwhile. */
export function requeueLapsed(em: EntityManager, id: string, nextTask: string) {
  return row<{ id: string; domain_id: string; priority: number }>(em, REQUEUE, [nextTask, id]);
}

/** exhaust: a lapsed lease with no attempt left ends failed with the case saying why. */
export function exhaust(em: EntityManager, id: string, why: StoredCase) {
  return row<{ id: string; domain_id: string }>(em, EXHAUST, [JSON.stringify([why]), id]);
}

/** reenqueue: a waiting record whose task `oldTask` has no live job, under `nextTask`. */
export function reenqueue(em: EntityManager, id: string, oldTask: string | null, nextTask: string) {
  return row<{ id: string; domain_id: string; priority: number }>(em, REENQUEUE, [nextTask, id, oldTask]);
}

/** Which records one rejudge statement takes, its SQL and parameters: `r` is the records table. */
export interface Selection {
  where: string;
  values: unknown[];
  /** The batch bound of a bulk rejudge (keyset on created_at, id); 1 for a single record. */
  limit: number;
}

export interface RejudgeOptions {
  /** Pin the record's own config version instead of the problem's latest. */
  ownConfig: boolean;
  /** The priority of records that were judged; a waiting or working record keeps its own unless `force`. */
  priority: number;
  force: boolean;
  actorId: string;
}

export interface RejudgeResult {
  /** Records the selection matched (and locked). */
  matched: number;
  /** The last of them in (created_at, id) order, where the next batch starts. */
  last: { at: string; id: string } | null;
  /** The tasks to enqueue, one per record rejudged. */
  queued: { recordId: string; domainId: string; taskId: string; priority: number }[];
}

/** rejudge: the selected records wait again (record-transitions.sql.ts); the caller enqueues `queued`. */
export async function rejudge(
  em: EntityManager,
  selection: Selection,
  options: RejudgeOptions,
): Promise<RejudgeResult> {
  const statement = sql.rejudgeSql(selection.where, selection.limit, FINAL_STATES);
  const values = [...selection.values, options.ownConfig, options.force, options.priority, options.actorId];
  return (await row<RejudgeResult>(em, statement, values))!;
}
