import { Queue, type JobsOptions } from "bullmq";
import type { Config } from "../settings/config";
import { JUDGE_JOB, queueConnection, type CaseResult, type RecordJudgePayload } from "../core/judge-protocol";

/**
 * The job catalogue: which queues exist, which jobs run on each and what their payloads are.
 * `enqueue()` is the only way the API touches BullMQ. Features add their jobs to `JobCatalogue`
 * (records: `record.judge` on `judge`; configs: `config.unpack` and `similarity.report` on `configs`), and
 * each worker's handler table must then cover them (a missing handler is a compile error, see workers/).
 */
export const QUEUE_NAMES = ["judge", "configs"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type ConfigJsonOnMissing = "raise_error" | "use_old" | "use_default";

/** Unpack an uploaded archive (a blob) into a new config version of a problem. */
export interface ConfigUnpackPayload {
  problemId: string;
  uploadDigest: string;
  committerId: string;
  /** The uploader's address, for the audit event written with the version (absent: a job queued before it existed). */
  committerIp?: string | null;
  configJsonOnMissing: ConfigJsonOnMissing;
}

/**
 * Judge one record. The job id is the record's task id, so a duplicate enqueue collapses; whoever takes
 * the job claims the record with that task id through the judge protocol.
 */
export { JUDGE_JOB, type RecordJudgePayload };

export type PackageFormat = "kattis" | "polygon" | "fps" | "hydro";

/**
 * A problem package read (the `package.read` job): one problem, or several (an FPS file, a Hydro export),
 * each with its files and generated config.json stored as blobs.
 */
export interface PackageRead {
  format: PackageFormat;
  problems: PackageProblemRead[];
}

/**
 * One problem of a package: its title and statement, its version's files, the languages, the files shown to
 * solvers (by the name the statement links), the package's own submissions with the rules they must meet,
 * and what the import says (notes).
 */
export interface PackageProblemRead {
  title: string;
  content: string;
  tree: { path: string; digest: string; size: number }[];
  languages: string[];
  /** Served under `name`; the statement links it as `link`. */
  attachments: { name: string; link: string; digest: string; size: number }[];
  submissions: {
    path: string;
    expected: string;
    rules: { permitted: CaseResult[]; required: CaseResult[]; cases?: number[]; source: string }[];
    score?: { min: number; max: number } | "partial";
    language: string | null;
    skipped: string | null;
  }[];
  notes: string[];
  /** The config's full score and its cases' input paths, in order (what verification reads records by). */
  fullScore: number;
  casePaths: string[];
}

export interface ReconcileReport {
  /** Lapsed leases put back in the queue under a new task id. */
  requeued: number;
  /** Records that used up their attempts and ended `failed`. */
  failed: number;
  /** Waiting records that had no live job and were enqueued again. */
  reenqueued: number;
}

/** What one pass of the runs' housekeeping did (runs.jobs.ts). */
export interface RunHousekeepingReport {
  /** Runs past their keeping time, deleted with their files. */
  expired: number;
  /** Lapsed leases put back in the queue under a new task id. */
  requeued: number;
  /** Runs whose lease lapsed a second time, ended `failed`. */
  failed: number;
  /** Queued runs that had no live job and were enqueued again. */
  reenqueued: number;
}

export interface JobCatalogue {
  "record.judge": { queue: "judge"; payload: RecordJudgePayload; result: unknown };
  /** Judge a run (docs/api.md "Runs"): the same protocol as a record's, under /runs, at a lower priority. */
  "run.judge": { queue: "judge"; payload: RecordJudgePayload; result: unknown };
  /** Runs' lapsed leases, lost jobs and expiry (scheduled by the configs worker, the housekeeper). */
  "run.housekeep": { queue: "configs"; payload: Record<string, never>; result: RunHousekeepingReport };
  /** Lease expiry and stranded-record recovery (scheduled by the configs worker, the housekeeper). */
  "record.reconcile": { queue: "configs"; payload: Record<string, never>; result: ReconcileReport };
  "config.unpack": { queue: "configs"; payload: ConfigUnpackPayload; result: { configId: string } };
  /**
   * A problem package read into a config version's files (docs/problem-packages.md); the API
   * creates the problem.
   */
  "package.read": {
    queue: "configs";
    /** `fileName`: the uploaded file's name, which a bare FPS file is read (and named in refusals) under. */
    payload: { uploadDigest: string; format?: PackageFormat; fileName?: string };
    result: PackageRead;
  };
  /** A problem's code-similarity report (docs/running-a-course.md "Code similarity"), requested by staff. */
  "similarity.report": { queue: "configs"; payload: { reportId: string }; result: { pairs: number } };
  /** Deletes config versions and blobs nothing references any more (scheduled by the configs worker). */
  "blob.collect": { queue: "configs"; payload: { graceSeconds?: number }; result: { versions: number; blobs: number } };
}

export type JobName = keyof JobCatalogue & string;
export type JobsOn<Q extends QueueName> = { [N in JobName]: JobCatalogue[N] extends { queue: Q } ? N : never }[JobName];
export type PayloadOf<N extends JobName> = JobCatalogue[N] extends { payload: infer P } ? P : never;
export type ResultOf<N extends JobName> = JobCatalogue[N] extends { result: infer R } ? R : never;

/** BullMQ opens (and closes) its own connections from these options: a shared client would never be quit. */
export { queueConnection };

export type Queues = Record<QueueName, Queue>;

export function createQueues(config: Pick<Config, "redisUrl" | "queuePrefix">): Queues {
  const connection = queueConnection(config);
  return Object.fromEntries(
    QUEUE_NAMES.map((name) => {
      const queue = new Queue(name, { connection, prefix: config.queuePrefix });
      // Connection trouble surfaces where it matters, as a failed or timed-out call that the caller
      // handles (a submission is kept and re-enqueued later); the event itself would only be noise.
      queue.on("error", () => {});
      return [name, queue];
    }),
  ) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}

export async function enqueue<N extends JobName>(
  queues: Queues,
  name: N,
  payload: PayloadOf<N>,
  options: JobsOptions & { queue: QueueName },
): Promise<void> {
  const { queue, ...jobOptions } = options;
  await queues[queue].add(name, payload, jobOptions);
}
