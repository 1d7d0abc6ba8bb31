import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import { BizError } from "../../../core/errors";
import type { DomainAccess } from "../../identity/access";
import type { RecordJudgePayload } from "../../../jobs/catalogue";
import { findRecord } from "../../records/records.service";
import { NEXT_TASK_SQL } from "../judging.sql";
import * as transitions from "../record-transitions";

/**
 * A task a judger may claim (the queue's payload: record, domain, the task id the claim must name) and its language.
 */
export type JudgeTask = RecordJudgePayload & { language: string };

/** How long a task handed to one poller is kept from the others; after that its claim is presumed lost. */
const OFFER_SECONDS = 10;
/** New tasks from other processes (the reconciler) are seen within this, without any wake-up. */
const RECHECK_MS = 1_000;

/**
 * Wakes long-polling judgers when a task is queued in this process (a submission, a give-back). A
 * module-level signal: one API process is one board; several apps in one test process only cause
 * harmless extra looks at the table.
 */
const wakers = new Set<() => void>();
export function announceTask(): void {
  for (const wake of [...wakers]) wake();
}

function sleepUntilAnnounced(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wakers.delete(done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wakers.add(done);
    signal.addEventListener("abort", done);
  });
}

/** The next task, marked offered in its row in the same statement (NEXT_TASK_SQL): one poller gets it. */
async function oldestUnoffered(em: EntityManager): Promise<JudgeTask | null> {
  type Row = { id: string; domain_id: string; task_id: string; language: string; kind: "run" | null };
  const rows = await em.execute<Row[]>(NEXT_TASK_SQL, [OFFER_SECONDS, OFFER_SECONDS]);
  if (rows.length === 0) return null;
  const { id, domain_id: domainId, task_id: taskId, language, kind } = rows[0];
  return { recordId: id, domainId, taskId, language, ...(kind ? { kind } : {}) };
}

/**
 * The waiting task to judge next, not just offered to another judger: by priority as the queue takes
 * them (submissions before a bulk rejudge, see JUDGE_PRIORITY), then oldest first, waiting up to
 * `waitMs` for one. Stops early when the caller goes away or the server shuts down (`stop`).
 */
export async function nextTask(em: EntityManager, waitMs: number, stop: AbortSignal): Promise<JudgeTask | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const task = await oldestUnoffered(em);
    if (task) return task;
    const left = deadline - Date.now();
    if (left <= 0 || stop.aborted) return null;
    await sleepUntilAnnounced(Math.min(left, RECHECK_MS), stop);
  }
}

/**
 * The lease holder gives a record back (a judger stopping cleanly): it waits again under a new task
 * id, its partial results cleared, and the attempt does not count against it. Returns the new task.
 */
export async function releaseRecord(
  em: EntityManager,
  access: DomainAccess,
  recordId: string,
  taskId: string,
): Promise<JudgeTask & { priority: number }> {
  const id = recordId.toLowerCase();
  const next = randomUUID();
  const released = await transitions.release(em, access, id, taskId.toLowerCase(), next);
  if (released) return { recordId: id, domainId: access.domainId, taskId: next, ...released };
  await findRecord(em, access.domainId, id); // RecordNotFoundError first
  throw new BizError("Error", "only the judger holding this record's current task and lease may give it back");
}
