import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { languageNames, serializeConfigJson, validateConfigJson } from "../../core/config-model/config-json";
import type { PackageRead } from "../../jobs/catalogue";
import { errorToJobFailure } from "../../jobs/job-failure";
import type { BlobStore } from "../../storage/blob-store";
import {
  ArchiveError,
  DEFAULT_ARCHIVE_LIMITS,
  readArchive,
  type ArchiveEntry,
} from "../problem-configs/archive-reader";
import { storeBlob } from "../problem-configs/blobs.service";
import { isKattis, readKattis } from "./kattis-package";
import { configOf } from "./package-config";
import { refuse } from "./package-model";
import { isPolygon, readPolygon } from "./polygon-package";

/**
 * The `package.read` job (configs worker): an uploaded problem package read and checked, and its files
 * and generated config.json stored as blobs. The API then creates the problem and its first config
 * version from the result in one transaction (problem-packages.service.ts).
 */

export async function readProblemPackage(
  payload: { uploadDigest: string; format?: "kattis" | "polygon" },
  ctx: { em: EntityManager; store: BlobStore },
): Promise<PackageRead> {
  try {
    const files = new Map((await entriesOf(ctx.store, payload.uploadDigest)).map((e) => [e.path, e.data]));
    if (files.has("config.json")) throw refuse("this is a config archive (it has config.json): upload it to …/configs");
    const format = payload.format ?? (isKattis(files) ? "kattis" : isPolygon(files) ? "polygon" : null);
    if (!format) throw refuse("neither a Kattis package (problem.yaml and data/) nor a Polygon package (problem.xml)");
    if (format === "kattis" && !files.has("problem.yaml")) throw refuse("a Kattis package needs problem.yaml");
    if (format === "polygon" && !files.has("problem.xml")) throw refuse("a Polygon package needs problem.xml");
    const problem = format === "kattis" ? readKattis(files) : readPolygon(files);
    const config = validateConfigJson(configOf(problem), { archiveFiles: files.keys() });
    const tree: PackageRead["tree"] = [];
    for (const [path, data] of [...files, ["config.json", serializeConfigJson(config)] as const])
      tree.push({ path, ...(await storeBlob(ctx.em, ctx.store, data)) });
    return {
      format,
      // NUL bytes dropped: no PostgreSQL text holds one, and no statement needs one.
      title: problem.title.replaceAll("\0", "").trim().slice(0, 512) || "Untitled",
      content: problem.content.replaceAll("\0", "").slice(0, 65536),
      tree,
      languages: languageNames(config),
      submissions: problem.submissions,
      notes: problem.notes,
    };
  } catch (error) {
    throw errorToJobFailure(error);
  }
}

/** The archive's entries (the same hostile-archive rules as a config upload), a lone top folder unwrapped. */
async function entriesOf(store: BlobStore, digest: string): Promise<ArchiveEntry[]> {
  let entries: ArchiveEntry[];
  try {
    entries = await readArchive(await store.get(digest), DEFAULT_ARCHIVE_LIMITS);
  } catch (error) {
    if (error instanceof ArchiveError) throw new BizError("FileValidationError", error.message);
    throw error;
  }
  entries = entries.filter((e) => !e.path.startsWith("__MACOSX/") && !e.path.endsWith(".DS_Store"));
  const top = entries[0]?.path.split("/")[0];
  const wrapped = top && entries.every((e) => e.path.startsWith(`${top}/`));
  return wrapped ? entries.map((e) => ({ path: e.path.slice(top.length + 1), data: e.data })) : entries;
}
