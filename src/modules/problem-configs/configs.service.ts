import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { isUuid } from "../../db/addressing";
import { pageWindow, parseOrdering, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { BlobStore } from "../../storage/blob-store";
import type { User } from "../users/user.entity";
import type { Problem } from "../problems/problem.entity";
import { ProblemConfig } from "./problem-config.entity";
import { CONFIG_JSON } from "./configs.jobs";
import {
  languageNames,
  parseConfigJson,
  serializeConfigJson,
  validateConfigJson,
} from "../../core/config-model/config-json";
import type { ConfigJson } from "../../core/config-model/config-schema";
import { storeBlob } from "./blobs.service";
import { commitVersion, latestConfig, treeOf, type TreeEntry } from "./versions.service";
import type { ProblemConfigDetailView } from "./configs.schemas";

export async function listVersions(
  em: EntityManager,
  problem: Problem,
  query: ListQuery,
): Promise<ListPage<ProblemConfig>> {
  const { offset, limit } = pageWindow(query);
  const orderBy = query.ordering ? parseOrdering(query.ordering) : { version: "desc" as const };
  const [results, count] = await em.findAndCount(ProblemConfig, { problem }, { orderBy, offset, limit });
  return { count, results };
}

/** `latest` or a version id of this problem; anything else is ProblemConfigNotFoundError. */
export async function findVersion(em: EntityManager, problem: Problem, ref: string): Promise<ProblemConfig> {
  const version =
    ref === "latest"
      ? await latestConfig(em, problem)
      : isUuid(ref)
        ? await em.findOne(ProblemConfig, { id: ref.toLowerCase(), problem })
        : null;
  if (!version)
    throw new BizError(
      "ProblemConfigNotFoundError",
      ref === "latest" ? "the problem has no config yet" : "config version not found",
    );
  return version;
}

export async function readConfigJson(em: EntityManager, store: BlobStore, version: ProblemConfig): Promise<ConfigJson> {
  const entry = (await treeOf(em, version)).find((f) => f.path === CONFIG_JSON);
  if (!entry) throw new BizError("FileValidationError", "config.json: this version has none");
  return parseConfigJson(await store.get(entry.digest));
}

/** A new version with config.json replaced and every other file kept (Horse's `configs/json`). */
export async function updateConfigJson(
  em: EntityManager,
  store: BlobStore,
  problem: Problem,
  committer: { user: User; ip: string | null },
  input: unknown,
): Promise<ProblemConfig> {
  const latest = await latestConfig(em, problem);
  const tree: TreeEntry[] = latest ? (await treeOf(em, latest)).filter((f) => f.path !== CONFIG_JSON) : [];
  const config = validateConfigJson(structuredClone(input), {
    archiveFiles: [...tree.map((f) => f.path), CONFIG_JSON],
  });
  tree.push({ path: CONFIG_JSON, ...(await storeBlob(em, store, serializeConfigJson(config))) });
  return commitVersion(em, {
    problem,
    committer: committer.user,
    tree,
    languages: languageNames(config),
    audited: { action: "problem_config.update_json", ip: committer.ip },
  });
}

export interface ObjectQuery {
  prefix?: string;
  delimiter?: string;
  after?: string;
  amount?: number;
}

const page = <T>(results: T[], amount: number, lastKey: (item: T) => string) => {
  const hasMore = results.length > amount;
  const shown = results.slice(0, amount);
  return {
    pagination: {
      has_more: hasMore,
      next_offset: hasMore && shown.length ? lastKey(shown[shown.length - 1]) : "",
      results: shown.length,
      max_per_page: amount,
    },
    results: shown,
  };
};

/** Group paths under a delimiter like S3 does: `data/1.in` with delimiter `/` shows as `data/`. */
function listing(tree: TreeEntry[], query: ObjectQuery) {
  const prefix = query.prefix ?? "";
  const rows = new Map<string, TreeEntry | null>();
  for (const entry of tree) {
    if (!entry.path.startsWith(prefix)) continue;
    const cut = query.delimiter ? entry.path.indexOf(query.delimiter, prefix.length) : -1;
    if (cut >= 0) rows.set(entry.path.slice(0, cut + query.delimiter!.length), null);
    else rows.set(entry.path, entry);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .filter(([path]) => !query.after || path > query.after);
}

/** Horse's `ObjectStatsList` for the latest version (inner keys snake_case, as LakeFS sent them). */
export async function listObjects(em: EntityManager, version: ProblemConfig, query: ObjectQuery) {
  const amount = query.amount ?? 100;
  const mtime = Math.floor(version.createdAt.getTime() / 1000);
  const rows = listing(await treeOf(em, version), query)
    .slice(0, amount + 1)
    .map(([path, entry]) =>
      entry
        ? {
            path,
            path_type: "object" as const,
            checksum: entry.digest,
            size_bytes: entry.size,
            mtime,
            content_type: "application/octet-stream",
          }
        : { path, path_type: "common_prefix" as const, checksum: "", mtime },
    );
  return page(rows, amount, (row) => row.path);
}

/** What the latest version changed against the one before it (or against `from`), Horse's `DiffList`. */
export async function diffVersions(
  em: EntityManager,
  problem: Problem,
  fromRef: string | undefined,
  query: ObjectQuery,
) {
  const latest = await findVersion(em, problem, "latest");
  const base = fromRef
    ? await findVersion(em, problem, fromRef)
    : await em.findOne(ProblemConfig, { problem, version: { $lt: latest.version } }, { orderBy: { version: "desc" } });
  const before = new Map((base ? await treeOf(em, base) : []).map((f) => [f.path, f]));
  const after = new Map((await treeOf(em, latest)).map((f) => [f.path, f]));
  const changes: { type: "added" | "removed" | "changed"; path: string; path_type: "object"; size_bytes: number }[] =
    [];
  for (const [path, file] of after) {
    const old = before.get(path);
    if (!old) changes.push({ type: "added", path, path_type: "object", size_bytes: file.size });
    else if (old.digest !== file.digest)
      changes.push({ type: "changed", path, path_type: "object", size_bytes: file.size });
  }
  for (const [path, file] of before)
    if (!after.has(path)) changes.push({ type: "removed", path, path_type: "object", size_bytes: file.size });
  const prefix = query.prefix ?? "";
  const shown = changes
    .filter((c) => c.path.startsWith(prefix) && (!query.after || c.path > query.after))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return page(shown.slice(0, (query.amount ?? 100) + 1), query.amount ?? 100, (c) => c.path);
}

export function toVersionView(version: ProblemConfig): ProblemConfigDetailView {
  return {
    id: version.id,
    commitMessage: version.commitMessage,
    dataVersion: version.dataVersion,
    commitId: version.commitId,
    committerId: version.committer?.id ?? null,
    createdAt: isoTime(version.createdAt),
    updatedAt: isoTime(version.updatedAt),
    version: version.version,
  };
}
