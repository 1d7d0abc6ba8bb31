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

/** A stage's finding as the record shows it (docs/config-reference.md "Stages"). */
export interface StageComment {
  /** The submitted file, relative to the submission ("" when the finding names no file). */
  file: string;
  /** 1-based; 0 when the finding names no line. */
  line: number;
  /** The tool's check (clang-tidy's, cppcheck's id, cpplint's category) or the keyword rule. */
  check: string;
  message: string;
  /** Points this finding deducted (before the stage's cap). */
  points: number;
}

/** One stage's outcome, reported with the record's state and stored on the record. */
export interface StageReport {
  name: string;
  kind: string;
  /** failed: the tool could not do its job (the judge's side, never the student's): nothing deducted. */
  state: "done" | "failed" | "skipped";
  /** Points taken off the tests' score, after the stage's cap. */
  deduction: number;
  /** A forbidden pattern was found: the record's score is 0. */
  forbidden: boolean;
  /** Why it failed, was skipped or forbade; or a summary. */
  message: string;
  comments: StageComment[];
}

/** Most comments a stage keeps (the rest are counted in its message), and the longest comment. */
export const STAGE_COMMENTS_MAX = 100;
export const STAGE_MESSAGE_MAX = 500;
