import type { EntityManager } from "@mikro-orm/postgresql";
import { isoTime } from "../../../http/schemas";
import { domainIdOf } from "../../domains/domain-content";
import type { Problem } from "../../problems/problem.entity";
import { ProblemConfig } from "../../problem-configs/problem-config.entity";
import { treeOf } from "../../problem-configs/versions.service";
import type { JudgeRecord } from "../../records/record.entity";
import { filesOf } from "../../records/records.service";
import type { JudgerCredentialsView } from "./judge.schemas";
import type { ClaimedRow } from "../record-transitions";

/** Where a record's resources live under this API (absolute, for judgers on other machines). */
export function recordUrl(publicUrl: string, record: JudgeRecord): string {
  return recordUrlOf(publicUrl, domainIdOf(record), record.id);
}

export const recordUrlOf = (publicUrl: string, domainId: string, recordId: string) =>
  `${publicUrl}/api/v1/domains/${domainId}/records/${recordId.toLowerCase()}`;

/**
 * What a claiming judger gets: Horse's four strings (repository names and commit ids, kept so Horse's
 * judgers still parse the answer) and the links to fetch every file through this API.
 */
export async function judgerCredentials(
  em: EntityManager,
  record: JudgeRecord,
  publicUrl: string,
): Promise<JudgerCredentialsView> {
  const config = await em.findOneOrFail(ProblemConfig, { id: record.config!.id });
  const problem = record.problem as unknown as Problem | null;
  const base = recordUrl(publicUrl, record);
  const link = (f: { path: string; digest: string; size: number }) => ({
    ...f,
    url: `${base}/judge/files/${f.digest}`,
  });
  return {
    problemConfigRepoName: `joj-config-${problem?.problemGroup?.id ?? config.id}`,
    problemConfigCommitId: config.commitId,
    recordRepoName: `joj-submission-${problem?.id ?? record.id}`,
    recordCommitId: record.commitId ?? record.id,
    taskId: record.taskId!,
    language: record.language,
    leaseExpiresAt: isoTime(record.leaseExpiresAt!),
    problemConfigId: config.id,
    configArchiveUrl: `${base}/judge/config`,
    codeArchiveUrl: `${base}/code`,
    configFiles: (await treeOf(em, config)).map(link),
    codeFiles: (await filesOf(em, record)).map(link),
  };
}

/** The same answer from the claim statement's row (judge-statements.ts), with no further query. */
export function credentialsOfClaim(claimed: ClaimedRow, domainId: string, publicUrl: string): JudgerCredentialsView {
  const base = `${publicUrl}/api/v1/domains/${domainId}/records/${claimed.id}`;
  const link = (f: { path: string; digest: string; size: number }) => ({
    ...f,
    size: Number(f.size),
    url: `${base}/judge/files/${f.digest}`,
  });
  return {
    problemConfigRepoName: `joj-config-${claimed.problem_group_id ?? claimed.config_id}`,
    problemConfigCommitId: claimed.config_commit_id!,
    recordRepoName: `joj-submission-${claimed.problem_id ?? claimed.id}`,
    recordCommitId: claimed.commit_id ?? claimed.id,
    taskId: claimed.task_id,
    language: claimed.language,
    leaseExpiresAt: claimed.lease_expires_at,
    problemConfigId: claimed.config_id!,
    configArchiveUrl: `${base}/judge/config`,
    codeArchiveUrl: `${base}/code`,
    configFiles: claimed.config_files.map(link),
    codeFiles: claimed.code_files.map(link),
  };
}
