import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";
import { Problem } from "../problems/problem.entity";
import { ProblemSet } from "../problem-sets/problem-set.entity";
import type { StoredCase } from "../judging/record-states";

/**
 * A run (docs/api.md "Runs"): a user's program judged on their own input or on the problem's public cases,
 * with a config generated for it alone, and no record: nothing counts it, no board or grade reads it. Kept
 * until `expiresAt` (RUNS_KEEP_MINUTES), then deleted with its files by the configs worker's housekeeping.
 * Judged through the judge protocol under /runs, fenced like a record: `taskId` is the one job that may judge
 * it now, `judger` + `leaseExpiresAt` who holds it, `attempts` how many claims it took.
 */
export const Run = defineEntity({
  name: "Run",
  tableName: "runs",
  indexes: [
    // How many runs a user has waiting (RUNS_WAITING), counted under a lock on each new run.
    { name: "runs_owner_state_index", properties: ["owner", "state"] },
    // The housekeeping: lapsed leases, runs without a live job, the hand-out to judges over HTTP.
    { name: "runs_state_index", properties: ["state", "leaseExpiresAt"] },
    { name: "runs_expires_index", properties: ["expiresAt"] },
  ],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("cascade"),
    problem: () => p.manyToOne(Problem).deleteRule("cascade").index("runs_problem_index"),
    problemSet: () => p.manyToOne(ProblemSet).nullable().deleteRule("set null"),
    owner: () => p.manyToOne(User).deleteRule("cascade"),
    judger: () => p.manyToOne(User).nullable().deleteRule("set null"),
    language: p.string().length(256),
    /** `input`: one case on the user's input; `samples`: the language's public cases. */
    mode: p.string().length(8),
    /** queued, running, done or failed (runs.sql.ts moves it). */
    state: p.string().length(8).default("queued"),
    taskId: p.uuid().nullable(),
    attempts: p.integer().default(0),
    leaseExpiresAt: p.datetime().nullable(),
    /** Until when its task, handed to one long-polling judger, is kept from the others (next_task). */
    offeredUntil: p.datetime().nullable(),
    /** The judge queue's priority of its task (judge-queue.ts JUDGE_PRIORITY.run), for the HTTP hand-out. */
    priority: p.integer().default(0),
    judgedAt: p.datetime().nullable(),
    expiresAt: p.datetime(),
    /** Per case of the generated config: the index of the problem's case it stands for, or null (the user's input). */
    sources: p.json<(number | null)[]>().defaultRaw("'[]'::jsonb"),
    /** The judge's case reports, by index; a case not reported yet is null. */
    cases: p.json<(StoredCase | null)[]>().defaultRaw("'[]'::jsonb"),
  },
});

export type Run = InferEntity<typeof Run>;

/**
 * A file of a run: its generated config version's (`config`: config.json, the user's input, the public
 * cases' data, checkers, the language's own files) or the submitted program's (`code`). The digest keeps
 * the blob alive while the run exists (BLOB_REFS).
 */
export const RunFile = defineEntity({
  name: "RunFile",
  tableName: "run_files",
  uniques: [{ name: "run_files_run_kind_path_unique", properties: ["run", "kind", "path"] }],
  indexes: [{ name: "run_files_digest_index", properties: ["digest"] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    run: () => p.manyToOne(Run).deleteRule("cascade"),
    kind: p.string().length(8),
    path: p.string().length(1024),
    digest: p.string().length(64),
    size: p.bigint("number"),
  },
});

export type RunFile = InferEntity<typeof RunFile>;
