import type { EntityManager } from "@mikro-orm/postgresql";
import type { JudgingSettings } from "../../../settings/config";
import { BizError } from "../../../core/errors";
import { isUuid } from "../../../db/addressing";
import * as metrics from "../../../runtime/metrics";
import type { DomainAccess } from "../../identity/access";
import { ProblemConfig } from "../../problem-configs/problem-config.entity";
import { treeOf } from "../../problem-configs/versions.service";
import { filesOf, findRecord, isWorkingJudger } from "../../records/records.service";
import { isFinal } from "../record-states";
import * as transitions from "../record-transitions";
import type { JudgerCredentialsView } from "./judge.schemas";
import { credentialsOfClaim, judgerCredentials } from "./judger-credentials";
import { loadForJudging, pin, refused } from "./judged-record";

/**
 * Claims a waiting record for the caller with the task id the queue handed out; the answer is what
 * the judger needs. One conditional UPDATE decides: of two claims of one task exactly one gets the row,
 * even two of one judger (two of its loops handed one task would otherwise both judge it). A holder keeps
 * its lease alive with its reports (a report without a state renews it).
 */
export async function claimForJudger(
  em: EntityManager,
  access: DomainAccess,
  recordId: string,
  taskId: string,
  settings: JudgingSettings,
  publicUrl: string,
): Promise<JudgerCredentialsView> {
  const id = recordId.toLowerCase();
  const task = taskId.toLowerCase();
  if (isUuid(task)) {
    const claimed = await transitions.claim(em, access, id, task, settings.leaseSeconds);
    if (claimed) {
      pin(id, claimed.config_id, claimed.language);
      metrics.judgeClaims.inc();
    }
    if (claimed?.config_id) return credentialsOfClaim(claimed, access.domainId, publicUrl);
    // Claimed, but its config version went away meanwhile: answered from the record.
    if (claimed) return judgerCredentials(em, await loadForJudging(em, access.domainId, id), publicUrl);
  }
  throw await claimRefusal(em, access, id, task);
}

/** Why a claim changed nothing, read from the record. */
async function claimRefusal(em: EntityManager, access: DomainAccess, id: string, taskId: string): Promise<BizError> {
  const record = await loadForJudging(em, access.domainId, id);
  if (!taskId || record.taskId !== taskId) {
    return refused("this task is not the record's current task (it was re-queued or never existed)");
  }
  if (!record.config) return refused("the record's config version no longer exists; it cannot be judged");
  return refused(
    isFinal(record.state)
      ? `the record is already judged (${record.state})`
      : "the record is already claimed by another judger",
  );
}

/**
 * What the judger holding a record may fetch while it judges: the pinned config version's files and
 * the submitted files (each with its digest).
 */
export async function filesForHolder(em: EntityManager, access: DomainAccess, recordId: string) {
  const record = await findRecord(em, access.domainId, recordId);
  if (!isWorkingJudger(access, record))
    throw refused("only the judger holding this record's lease may fetch its files");
  const version = record.config ? await em.findOne(ProblemConfig, { id: record.config.id }) : null;
  if (!version) throw new BizError("ProblemConfigNotFoundError", "the record's config version no longer exists");
  return { record, configFiles: await treeOf(em, version), codeFiles: await filesOf(em, record) };
}
