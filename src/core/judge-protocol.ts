import type { ConnectionOptions } from "bullmq";

/**
 * The judge protocol's vocabulary, shared by the server and the judge (docs/api.md "The judge protocol"):
 * what a queued task carries, the case results, and a case's report as the judge sends it and the
 * server stores and shows it (Horse's `RecordCase`).
 */

/** A `record.judge` job on the `judge` queue, and a task handed out by `POST /judge/next_task`. */
export interface RecordJudgePayload {
  /** The record's id, or the run's (`kind: "run"`). */
  recordId: string;
  domainId: string;
  taskId: string;
  /** A run on the user's own input (docs/api.md "Runs"): judged like a record, reported under /runs. */
  kind?: "run";
}

/** The judge queue's job names: a record, or a run at a lower priority. */
export const JUDGE_JOB = { record: "record.judge", run: "run.judge" } as const;

export const JUDGE_QUEUE = "judge";

/** BullMQ's connection to the queues' Redis: no retry limit per command, as its workers require. */
export function queueConnection(settings: { redisUrl: string }): ConnectionOptions {
  return { url: settings.redisUrl, maxRetriesPerRequest: null } as ConnectionOptions;
}

export const CASE_RESULTS = [
  "accepted",
  "wrong_answer",
  "time_limit_exceeded",
  "memory_limit_exceeded",
  "output_limit_exceeded",
  "runtime_error",
  "compile_error",
  "system_error",
  "canceled",
  "etc",
] as const;
export type CaseResult = (typeof CASE_RESULTS)[number];

/** One case's result: reported by the judge, stored on the record, shown to users. */
export interface CaseReport {
  state: CaseResult;
  score: number;
  timeMs: number;
  memoryKb: number;
  returnCode: number;
  stdout: string;
  stderr: string;
}

/** A case with no run behind it (pending, skipped, refused): nothing but its state and a message. */
export function caseWithout(state: CaseResult, stderr = ""): CaseReport {
  return { state, score: 0, timeMs: 0, memoryKb: 0, returnCode: 0, stdout: "", stderr };
}
