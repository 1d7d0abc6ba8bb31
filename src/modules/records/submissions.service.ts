import type { EntityManager } from "@mikro-orm/postgresql";
import { randomUUID } from "node:crypto";
import type { SubmissionLimits } from "../../config";
import { BizError } from "../../errors";
import type { BlobStore } from "../../storage/blob-store";
import type { User } from "../users/user.entity";
import type { Domain } from "../domains/domain.entity";
import type { Problem } from "../problems/problem.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { ArchiveError, formatBytes, quote, requireFilePath } from "../problem-configs/archive-paths";
import { storeBlob } from "../problem-configs/blobs.service";
import { commitIdOf, type TreeEntry } from "../problem-configs/versions.service";
import { JudgeRecord, RecordFile } from "./record.entity";

export interface SubmitTarget {
  domain: Domain;
  problem: Problem;
  /** The set submitted through, or null for the problem's own route. */
  set: ProblemSet | null;
  /** Submitted to the set after its due time. */
  late: boolean;
}

const PATH_LIMITS = { maxArchiveBytes: 0, maxTotalBytes: 0, maxFileBytes: 0, maxFiles: 0, maxPathLength: 255 };

/** The files' paths and sizes against the limits, before anything is stored. */
function checkFiles(files: File[], limits: SubmissionLimits): string[] {
  if (files.length > limits.maxFiles) throw new BizError("FileValidationError", `at most ${limits.maxFiles} files per submission, got ${files.length}`);
  let total = 0;
  const paths = files.map((file) => {
    let path: string;
    try {
      path = requireFilePath(file.name || "", PATH_LIMITS);
    } catch (error) {
      if (error instanceof ArchiveError) throw new BizError("FileValidationError", error.message);
      throw error;
    }
    if (file.size > limits.maxFileBytes) throw new BizError("FileValidationError", `${quote(path)} is larger than ${formatBytes(limits.maxFileBytes)}`);
    total += file.size;
    return path;
  });
  if (total > limits.maxTotalBytes) throw new BizError("FileValidationError", `the files add up to more than ${formatBytes(limits.maxTotalBytes)}`);
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path)) throw new BizError("FileValidationError", `${quote(path)} is sent twice`);
    seen.add(path);
  }
  return paths;
}

/**
 * Stores a submission: the files as blobs, then, in one transaction, the record (state `queueing`,
 * pinned to the problem's latest config version, with a fresh task id) and the submit counters.
 * The caller enqueues the task after this returns, i.e. after the commit.
 */
export async function submitSolution(
  em: EntityManager,
  store: BlobStore,
  limits: SubmissionLimits,
  committer: User,
  target: SubmitTarget,
  input: { language: string; files: File[] },
): Promise<JudgeRecord> {
  const paths = checkFiles(input.files, limits);
  // One statement, one snapshot: the latest version and the languages it wrote always agree.
  const [latest] = await em.execute<{ config_id: string | null; languages: string[] }[]>(
    `select c.id as config_id, p.languages from problems p
       left join lateral (select id from problem_configs where problem_id = p.id order by version desc limit 1) c on true
     where p.id = ?`,
    [target.problem.id],
  );
  if (!latest) throw new BizError("ProblemNotFoundError", "problem not found");
  if (!latest.config_id) throw new BizError("ProblemConfigNotFoundError", "the problem has no config yet, so it cannot be judged");
  if (!latest.languages.includes(input.language)) {
    throw new BizError("UnsupportedLanguageError", `language ${quote(input.language)} is not one of the problem's: ${latest.languages.join(", ") || "(none)"}`);
  }
  const contents = await Promise.all(input.files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
  return em.transactional(async (tx) => {
    // The blobs' ledger rows are written in this transaction (one durable commit, not one per file);
    // storeBlob takes each row before writing the bytes, so the collector cannot delete them meanwhile.
    const tree: TreeEntry[] = [];
    for (const [i, data] of contents.entries()) tree.push({ path: paths[i], ...(await storeBlob(tx, store, data)) });
    const record = tx.create(JudgeRecord, {
      domain: target.domain.id, problem: target.problem.id, problemSet: target.set?.id ?? null, config: latest.config_id,
      committer: committer.id, language: input.language, state: "queueing", taskId: randomUUID(), commitId: commitIdOf(tree),
      late: target.late, cases: [],
    });
    for (const entry of tree) tx.create(RecordFile, { record, path: entry.path, digest: entry.digest, size: entry.size });
    await tx.flush();
    // Counters move in SQL: concurrent submissions never overwrite each other's increment.
    await tx.execute("update problems set num_submit = num_submit + 1 where id = ?", [target.problem.id]);
    if (target.set) await tx.execute("update problem_sets set num_submit = num_submit + 1 where id = ?", [target.set.id]);
    return record;
  });
}
