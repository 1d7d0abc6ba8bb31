import type { EntityManager } from "@mikro-orm/postgresql";
import { createHash } from "node:crypto";
import { BizError } from "../../core/errors";
import type { User } from "../users/user.entity";
import type { Problem } from "../problems/problem.entity";
import { ProblemConfig } from "./problem-config.entity";
import { ProblemConfigFile } from "./problem-config-file.entity";
import { VERSION_LOCK_SQL } from "./problem-configs.sql";
import { audit } from "../audit/audit.service";
import { domainIdOf } from "../domains/domain-content";

export interface TreeEntry {
  path: string;
  digest: string;
  size: number;
}

/** The commit id of a tree: SHA-256 over its sorted (path, digest) pairs. Equal trees, equal ids. */
export function commitIdOf(tree: TreeEntry[]): string {
  const hash = createHash("sha256");
  for (const entry of [...tree].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(entry.path).update("\0").update(entry.digest).update("\n");
  }
  return hash.digest("hex");
}

export function latestConfig(em: EntityManager, problem: Problem): Promise<ProblemConfig | null> {
  return em.findOne(ProblemConfig, { problem }, { orderBy: { version: "desc" } });
}

export async function treeOf(em: EntityManager, config: ProblemConfig): Promise<TreeEntry[]> {
  const files = await em.find(ProblemConfigFile, { config }, { orderBy: { path: "asc" } });
  return files.map((f) => ({ path: f.path, digest: f.digest, size: Number(f.size) }));
}

/**
 * Commits a new version of the problem's config, inside a transaction that holds the problem's
 * config lock: concurrent commits to one problem queue up and each becomes its own version, in order.
 * A tree identical to the latest version is refused ("no changes"), like Horse's empty commit. With
 * `audited` (how the version came, and from which address), the audit event is in that transaction.
 */
export async function commitVersion(
  em: EntityManager,
  input: {
    problem: Problem;
    committer: User | null;
    tree: TreeEntry[];
    languages: string[];
    message?: string;
    audited?: { action: "problem_config.upload_archive" | "problem_config.update_json"; ip: string | null };
  },
): Promise<ProblemConfig> {
  return em.transactional(async (tx) => {
    await tx.execute(VERSION_LOCK_SQL, [`problem-config:${input.problem.id}`]);
    const commitId = commitIdOf(input.tree);
    const latest = await latestConfig(tx, input.problem);
    if (latest?.commitId === commitId)
      throw new BizError("FileUpdateError", "no changes: the config is identical to the latest version");
    const config = tx.create(ProblemConfig, {
      problem: input.problem,
      committer: input.committer,
      commitId,
      commitMessage: input.message ?? "",
      version: (latest?.version ?? 0) + 1,
    });
    for (const entry of input.tree)
      tx.create(ProblemConfigFile, { config, path: entry.path, digest: entry.digest, size: entry.size });
    const problem = tx.merge(input.problem);
    if (input.audited) {
      audit(
        tx,
        { user: input.committer, ip: input.audited.ip },
        {
          action: input.audited.action,
          target: { type: "problem_config", id: config.id },
          domainId: domainIdOf(problem),
          before: { version: latest?.version, commitId: latest?.commitId, languages: problem.languages },
          after: { version: config.version, commitId, languages: input.languages },
        },
      );
    }
    problem.languages = input.languages;
    await tx.flush();
    return config;
  });
}

/** A clone starts from its source's latest version (Horse copied nothing, so clones could not be judged). */
export async function copyLatestConfig(
  em: EntityManager,
  from: Problem,
  to: Problem,
  committer: User,
): Promise<ProblemConfig | null> {
  const source = await latestConfig(em, from);
  if (!source) return null;
  const tree = await treeOf(em, source);
  const config = em.create(ProblemConfig, {
    problem: to,
    committer,
    commitId: source.commitId,
    commitMessage: source.commitMessage,
    version: 1,
  });
  for (const entry of tree)
    em.create(ProblemConfigFile, { config, path: entry.path, digest: entry.digest, size: entry.size });
  return config;
}
