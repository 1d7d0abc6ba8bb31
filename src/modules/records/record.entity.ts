import type { StageReport } from "../../core/judge-protocol";
import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";
import { Problem } from "../problems/problem.entity";
import { ProblemSet } from "../problem-sets/problem-set.entity";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import type { RecordHistoryEntry, StoredCase } from "../judging/record-states";

/**
 * A submission and its judgement (Horse's `records`; named JudgeRecord so TypeScript's `Record`
 * stays usable). PostgreSQL is the source of truth: `taskId` is the one job that may judge it now,
 * `judger` + `leaseExpiresAt` who holds it, `attempts` how many claims it took. The record outlives its
 * problem, set, config version and users (their columns become null); the domain cannot be deleted
 * while it holds records.
 */
export const JudgeRecord = defineEntity({
  name: "JudgeRecord",
  tableName: "records",
  indexes: [
    // The list and each of its filters, under the domain, in page order with the id: a page's offset
    // is found on the index alone (index-only), then only that page's rows are read (record-list.ts).
    { name: "records_domain_created_index", properties: ["domain", "createdAt", "id"] },
    { name: "records_domain_problem_index", properties: ["domain", "problem", "createdAt", "id"] },
    { name: "records_domain_committer_index", properties: ["domain", "committer", "createdAt", "id"] },
    { name: "records_domain_problem_set_index", properties: ["domain", "problemSet", "createdAt", "id"] },
    // "My latest record for this problem (in this set)" and "my records" come from this index.
    { name: "records_latest_index", properties: ["committer", "problem", "problemSet", "createdAt"] },
    { name: "records_problem_set_index", properties: ["problemSet", "createdAt"] },
    // The reconciler scans unfinished records.
    { name: "records_state_index", properties: ["state", "leaseExpiresAt"] },
    // The reconciler pages through every waiting record by (updated_at, id).
    { name: "records_waiting_index", properties: ["state", "updatedAt", "id"] },
  ],
  // record_counts' triggers (created by the migration `…021327_record_counts`, with their functions):
  // declared so that the schema check knows them.
  triggers: [
    {
      name: "records_counted_insert",
      timing: "after",
      events: ["insert"],
      forEach: "statement",
      expression:
        "create trigger records_counted_insert after insert on records referencing new table as new_rows for each " +
        "statement execute function record_counts_add()",
    },
    {
      name: "records_counted_delete",
      timing: "after",
      events: ["delete"],
      forEach: "statement",
      expression:
        "create trigger records_counted_delete after delete on records referencing old table as old_rows for each " +
        "statement execute function record_counts_remove()",
    },
    {
      name: "records_counted_update",
      timing: "after",
      events: ["update"],
      forEach: "row",
      expression:
        "create trigger records_counted_update after update of domain_id, problem_set_id, problem_id, committer_id " +
        "on records for each row when ((old.domain_id, old.problem_set_id, old.problem_id, old.committer_id) is " +
        "distinct from (new.domain_id, new.problem_set_id, new.problem_id, new.committer_id)) execute function " +
        "record_counts_move()",
    },
  ],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("restrict"),
    problemSet: () => p.manyToOne(ProblemSet).nullable().deleteRule("set null"),
    problem: () => p.manyToOne(Problem).nullable().deleteRule("set null"),
    config: () => p.manyToOne(ProblemConfig).nullable().deleteRule("set null").index("records_config_index"),
    committer: () => p.manyToOne(User).nullable().deleteRule("set null"),
    judger: () => p.manyToOne(User).nullable().deleteRule("set null").index("records_judger_index"),
    state: p.string().length(16).default("processing"),
    language: p.string().length(256),
    score: p.integer().default(0),
    timeMs: p.integer().default(0),
    memoryKb: p.integer().default(0),
    judgedAt: p.datetime().nullable(),
    /** The identity of the submitted files: SHA-256 over their (path, digest) pairs. */
    commitId: p.string().length(64).nullable(),
    taskId: p.uuid().nullable(),
    attempts: p.integer().default(0),
    leaseExpiresAt: p.datetime().nullable(),
    /** Until when its task, handed to one long-polling judger, is kept from the others (next_task). */
    offeredUntil: p.datetime().nullable(),
    /** Submitted to a set after its due time (and before it locked). */
    late: p.boolean().default(false),
    cases: p.json<StoredCase[]>().defaultRaw("'[]'::jsonb"),
    /** The config's lint, analysis and keyword stages as the judge reported them (core/judge-protocol.ts). */
    stages: p.json<StageReport[]>().defaultRaw("'[]'::jsonb"),
    /** The judgements rejudges replaced, oldest first (rejudge-statements.ts appends to it). */
    history: p.json<RecordHistoryEntry[]>().defaultRaw("'[]'::jsonb"),
    /**
     * The BullMQ priority of its current task (judge-queue.ts JUDGE_PRIORITY): kept here so that the
     * reconciler re-enqueues a lost task, and the HTTP hand-out offers it, at the priority it was given.
     */
    priority: p.integer().default(0),
  },
});

export type JudgeRecord = InferEntity<typeof JudgeRecord>;

/** One submitted file: its path in the submission and the content-addressed blob holding it. */
export const RecordFile = defineEntity({
  name: "RecordFile",
  tableName: "record_files",
  uniques: [{ name: "record_files_record_path_unique", properties: ["record", "path"] }],
  indexes: [{ name: "record_files_digest_index", properties: ["digest"] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    record: () => p.manyToOne(JudgeRecord).deleteRule("cascade"),
    path: p.string().length(1024),
    digest: p.string().length(64),
    size: p.bigint("number"),
  },
});

export type RecordFile = InferEntity<typeof RecordFile>;

/**
 * How many records each (domain, set, problem, committer) holds, kept by triggers on `records` (see
 * the migration `records_counts`): the record list's `count` is a sum over these rows, exact at any
 * size, instead of a count over the records. No foreign keys: a deleted problem's records move to the
 * "none" key with the records' own `set null`. "None" is the zero UUID, so the key can be primary.
 */
export const RecordCount = defineEntity({
  name: "RecordCount",
  tableName: "record_counts",
  indexes: [
    { name: "record_counts_problem_index", properties: ["domainId", "problemId"] },
    { name: "record_counts_committer_index", properties: ["domainId", "committerId"] },
  ],
  properties: {
    domainId: p.uuid().primary(),
    problemSetId: p.uuid().primary(),
    problemId: p.uuid().primary(),
    committerId: p.uuid().primary(),
    records: p.integer().default(0),
  },
});

export type RecordCount = InferEntity<typeof RecordCount>;
