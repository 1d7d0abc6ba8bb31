import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../../core/errors";
import { isUuid } from "../../../db/addressing";
import { row } from "../../../db/statements";
import { JUDGEMENT_SQL, KEYSET, PIN_CANDIDATES_SQL, PROBLEM_RECORDS, REJUDGE_ONE } from "../judging.sql";
import type { DomainAccess } from "../../identity/access";
import type { JobClient } from "../../../jobs/job-client";
import type { Logger } from "../../../core/logger";
import type { Problem } from "../../problems/problem.entity";
import type { ProblemSet } from "../../problem-sets/problem-set.entity";
import { quote } from "../../problem-configs/archive-paths";
import { enqueueJudgingBatch, JUDGE_PRIORITY, type QueuedTask } from "../tasks/judge-queue";
import * as transitions from "../record-transitions";
import type { RejudgeOptions, RejudgeResult } from "../record-transitions";
import type { ProblemRejudgeInput, RejudgeConfigChoice, RejudgeQueuedView } from "./rejudge.schemas";
import { audit } from "../../audit/audit.service";
import { unfinalize } from "../../problem-sets/unfinalize";
import { randomUUID } from "node:crypto";

/** Records one bulk statement takes: bounded, so no statement locks a whole problem's records at once. */
const BATCH = 500;

const notFound = () => new BizError("RecordNotFoundError", "record not found");

/**
 * Judges one record again, now: pinned to the problem's latest config version (or its own, `record`),
 * under a new task id at normal priority, whatever its state. A record waiting or being judged is
 * re-queued the same way (the judger on the old task is refused from then on); only a judged record
 * has a result to keep in its history. The caller enqueues the returned task.
 */
export async function rejudgeRecord(
  em: EntityManager,
  access: DomainAccess,
  recordId: string,
  config: RejudgeConfigChoice,
): Promise<QueuedTask> {
  const id = recordId.toLowerCase();
  if (!isUuid(id)) throw notFound();
  const options: RejudgeOptions = {
    ownConfig: config === "record",
    priority: JUDGE_PRIORITY.normal,
    force: true,
    actorId: access.userId,
  };
  const selection = { where: REJUDGE_ONE, values: [id, access.domainId], limit: 1 };
  const done = await em.transactional(async (tx) => {
    const before = await judgementOf(tx, selection.values);
    const result = await transitions.rejudge(tx, selection, options);
    if (result.queued.length === 1) {
      await unfinalize(tx, access, { ofRecord: id }, `record ${id} rejudged`);
      audit(tx, access, {
        action: "record.rejudge",
        target: { type: "record", id },
        domainId: access.domainId,
        before,
        after: { ...(await judgementOf(tx, selection.values)), config },
      });
    }
    return result;
  });
  if (done.queued.length === 1) return done.queued[0];
  if (done.matched === 0) throw notFound();
  throw await whyNotPinned(em, id, config);
}

/** What a rejudge changes of a record, read around its statement for the audit log. */
const judgementOf = (em: EntityManager, values: unknown[]) => row<Record<string, unknown>>(em, JUDGEMENT_SQL, values);

interface PinRow {
  problem_id: string | null;
  language: string;
  languages: string[] | null;
  latest: string | null;
}

/** Why the statement found no config version to pin for the record, read after the fact. */
async function whyNotPinned(em: EntityManager, id: string, config: RejudgeConfigChoice): Promise<BizError> {
  if (config === "record") {
    return new BizError(
      "ProblemConfigNotFoundError",
      "the record's own config version no longer exists; rejudge it with the latest",
    );
  }
  const found = await row<PinRow>(em, PIN_CANDIDATES_SQL, [id]);
  const ownConfig = 'rejudge it with its own config version ("config": "record")';
  if (!found?.problem_id)
    return new BizError("ProblemNotFoundError", `the record's problem no longer exists; ${ownConfig}`);
  if (!found.latest)
    return new BizError("ProblemConfigNotFoundError", "the problem has no config, so the record cannot be judged");
  const languages = (found.languages ?? []).join(", ") || "(none)";
  return new BizError(
    "UnsupportedLanguageError",
    `the latest config has no language ${quote(found.language)} (it has: ${languages}); ${ownConfig}`,
  );
}

/**
 * Judges again every record of a problem that matches the filters, in batches of BATCH records by
 * (created_at, id), each batch one statement and then one enqueue. Judged records are queued at the
 * low bulk priority, behind every new submission; records still waiting or being judged keep theirs.
 * Answers once all are queued, not judged: how many were queued and how many had no config version
 * to pin (the latest lacks their language, or their own version is gone).
 */
export async function rejudgeProblem(
  em: EntityManager,
  jobs: JobClient,
  logger: Logger,
  access: DomainAccess,
  target: { problem: Problem; set: ProblemSet | null },
  input: ProblemRejudgeInput,
): Promise<RejudgeQueuedView> {
  const options: RejudgeOptions = {
    ownConfig: input.config === "record",
    priority: JUDGE_PRIORITY.bulkRejudge,
    force: false,
    actorId: access.userId,
  };
  const problemId = target.problem.id;
  const setId = target.set?.id ?? null;
  const states = input.state === undefined ? null : `{${[input.state].flat().join(",")}}`;
  const language = input.language ?? null;
  const filters = [access.domainId, problemId, setId, setId, states, states, language, language];
  const asked = {
    problemSetId: setId,
    states: input.state && [input.state].flat(),
    language,
    config: input.config ?? "latest",
  };
  const bulk = { em, jobs, logger, access, problemId, options, filters, asked };
  const release = await lockProblem(jobs, problemId);
  const answer = await rejudgeBatches(bulk).finally(release);
  logger.info("bulk rejudge queued", { problemId, by: access.userId, ...answer });
  if (answer.queued > 0) {
    const why = `problem ${problemId} rejudged (${answer.queued} records)`;
    const sets = target.set ? { ids: [target.set.id] } : { ofProblem: problemId };
    const unfinalized = await em.transactional((tx) => unfinalize(tx, access, sets, why));
    if (unfinalized.length > 0) logger.warn("a rejudge un-finalized results", { problemId, sets: unfinalized });
  }
  return answer;
}

/** Longer than any bulk rejudge takes to queue; a process that dies holding the lock frees it by then. */
const LOCK_MS = 10 * 60_000;
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * One bulk rejudge of a problem at a time, across API processes: a second one would judge every record
 * twice over (each rejudge supersedes the task the first just queued) and write its history twice.
 */
async function lockProblem(jobs: JobClient, problemId: string): Promise<() => Promise<void>> {
  const redis = await jobs.commands();
  const key = `${jobs.queuePrefix}:rejudge:problem:${problemId}`;
  const token = randomUUID();
  if ((await redis.set(key, token, "PX", LOCK_MS, "NX")) !== "OK") {
    throw new BizError(
      "Error",
      "a bulk rejudge of this problem is being queued right now: try again when it has answered",
    );
  }
  return async () => {
    await redis.eval(UNLOCK, 1, key, token).catch(() => {});
  };
}

/** One bulk rejudge of a problem, as its batches need it. */
interface BulkRejudge {
  em: EntityManager;
  jobs: JobClient;
  logger: Logger;
  access: DomainAccess;
  problemId: string;
  options: RejudgeOptions;
  /** PROBLEM_RECORDS' parameters. */
  filters: unknown[];
  /** What was asked (the filters, not the statement's form of them), for the audit log. */
  asked: Record<string, unknown>;
}

async function rejudgeBatches(bulk: BulkRejudge): Promise<RejudgeQueuedView> {
  const { em, jobs, logger, access, options, filters } = bulk;
  const answer = { queued: 0, skipped: 0 };
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const selection = after
      ? { where: PROBLEM_RECORDS + KEYSET, values: [...filters, after.at, after.id], limit: BATCH }
      : { where: PROBLEM_RECORDS, values: filters, limit: BATCH };
    // One event per bulk rejudge, written with the first batch: what was asked (the filters), by whom.
    const batch: RejudgeResult = after
      ? await transitions.rejudge(em, selection, options)
      : await em.transactional(async (tx) => {
          const target = { type: "problem", id: bulk.problemId } as const;
          audit(tx, access, { action: "problem.rejudge", target, domainId: access.domainId, after: bulk.asked });
          return transitions.rejudge(tx, selection, options);
        });
    answer.queued += batch.queued.length;
    answer.skipped += batch.matched - batch.queued.length;
    await enqueueJudgingBatch(jobs, logger, batch.queued);
    if (batch.matched < BATCH || !batch.last) break;
    after = batch.last;
  }
  return answer;
}
