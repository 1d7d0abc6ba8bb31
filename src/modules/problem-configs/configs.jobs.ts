import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { ConfigUnpackPayload } from "../../jobs/catalogue";
import { errorToJobFailure } from "../../jobs/job-failure";
import { BlobNotFoundError, type BlobStore } from "../../storage/blob-store";
import { User } from "../users/user.entity";
import { Problem } from "../problems/problem.entity";
import {
  ArchiveError,
  DEFAULT_ARCHIVE_LIMITS,
  readArchive,
  stripSingleTopFolder,
  type ArchiveEntry,
  type ArchiveLimits,
} from "./archive-reader";
import { languageNames, parseConfigJson, serializeConfigJson } from "../../core/config-model/config-json";
import { defaultConfigJson } from "../../core/config-model/config-schema";
import { storeBlob } from "./blobs.service";
import { commitVersion, latestConfig, treeOf } from "./versions.service";

export const CONFIG_JSON = "config.json";

export interface ConfigJobContext {
  em: EntityManager;
  store: BlobStore;
  limits?: ArchiveLimits;
}

/**
 * The `config.unpack` job: the uploaded archive (a blob) becomes a new config version. Runs in the
 * configs worker; hostile archives are refused by the reader before anything is stored, and the
 * version is committed in one transaction, so a refusal leaves nothing half-written.
 */
export async function unpackConfigArchive(
  payload: ConfigUnpackPayload,
  ctx: ConfigJobContext,
): Promise<{ configId: string }> {
  try {
    const { em, store } = ctx;
    const problem = await em.findOne(Problem, { id: payload.problemId });
    if (!problem) throw new BizError("ProblemNotFoundError", "problem not found");
    const committer = await em.findOne(User, { id: payload.committerId });
    const entries = await readUpload(store, payload.uploadDigest, ctx.limits ?? DEFAULT_ARCHIVE_LIMITS);
    const files = await withConfigJson(em, store, problem, entries, payload.configJsonOnMissing);
    const config = parseConfigJson(files.find((f) => f.path === CONFIG_JSON)!.data, {
      archiveFiles: files.map((f) => f.path),
    });
    const tree = [];
    for (const file of files) tree.push({ path: file.path, ...(await storeBlob(em, store, file.data)) });
    const version = await commitVersion(em, {
      problem,
      committer,
      tree,
      languages: languageNames(config),
      audited: { action: "problem_config.upload_archive", ip: payload.committerIp ?? null },
    });
    return { configId: version.id };
  } catch (error) {
    throw errorToJobFailure(error);
  }
}

async function readUpload(store: BlobStore, digest: string, limits: ArchiveLimits): Promise<ArchiveEntry[]> {
  let bytes: Uint8Array;
  try {
    bytes = await store.get(digest);
  } catch (error) {
    if (error instanceof BlobNotFoundError)
      throw new BizError("FileUpdateError", "the uploaded archive is no longer available; upload it again");
    throw error;
  }
  try {
    return stripSingleTopFolder((await readArchive(bytes, limits)).filter((entry) => !isOsClutter(entry.path)));
  } catch (error) {
    if (error instanceof ArchiveError) throw new BizError("FileValidationError", error.message);
    throw error;
  }
}

/** What macOS's and Windows' archivers add on their own: never test data, and it would hide a single top folder. */
function isOsClutter(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return path.startsWith("__MACOSX/") || name === ".DS_Store" || name === "Thumbs.db";
}

/** Horse's `configJsonOnMissing`: refuse, reuse the latest version's config.json, or write the default one. */
async function withConfigJson(
  em: EntityManager,
  store: BlobStore,
  problem: Problem,
  entries: ArchiveEntry[],
  mode: ConfigUnpackPayload["configJsonOnMissing"],
): Promise<ArchiveEntry[]> {
  if (entries.some((e) => e.path === CONFIG_JSON)) return entries;
  if (mode === "raise_error")
    throw new BizError("ProblemConfigJsonNotFoundError", "the archive has no config.json at its root");
  if (mode === "use_default")
    return [...entries, { path: CONFIG_JSON, data: serializeConfigJson(defaultConfigJson()) }];
  const latest = await latestConfig(em, problem);
  const old = latest ? (await treeOf(em, latest)).find((f) => f.path === CONFIG_JSON) : undefined;
  if (!old) throw new BizError("FileUpdateError", "use_old: the problem has no earlier config.json to reuse");
  return [...entries, { path: CONFIG_JSON, data: await store.get(old.digest) }];
}
