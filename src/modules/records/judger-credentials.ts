import type { EntityManager } from "@mikro-orm/postgresql";
import { isoTime } from "../../http/schemas";
import type { Domain } from "../domains/domain.entity";
import type { Problem } from "../problems/problem.entity";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import { treeOf } from "../problem-configs/versions.service";
import type { JudgeRecord } from "./record.entity";
import { filesOf } from "./records.service";
import type { JudgerCredentialsView } from "./records.schemas";

/** Where a record's resources live under this API (absolute, for judgers on other machines). */
export function recordUrl(publicUrl: string, record: JudgeRecord): string {
  return `${publicUrl}/api/v1/domains/${(record.domain as unknown as Domain).id}/records/${record.id}`;
}

/**
 * What a claiming judger gets: Horse's four strings (repository names and commit ids, kept so Horse's
 * judgers still parse the answer) and the links to fetch every file through this API.
 */
export async function judgerCredentials(em: EntityManager, record: JudgeRecord, publicUrl: string): Promise<JudgerCredentialsView> {
  const config = await em.findOneOrFail(ProblemConfig, { id: record.config!.id });
  const problem = record.problem as unknown as Problem | null;
  const base = recordUrl(publicUrl, record);
  const link = (f: { path: string; digest: string; size: number }) => ({ ...f, url: `${base}/judge/files/${f.digest}` });
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
