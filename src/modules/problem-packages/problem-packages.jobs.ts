import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { languageNames, serializeConfigJson, validateConfigJson } from "../../core/config-model/config-json";
import type { PackageFormat, PackageProblemRead, PackageRead } from "../../jobs/catalogue";
import { errorToJobFailure } from "../../jobs/job-failure";
import type { BlobStore } from "../../storage/blob-store";
import {
  ArchiveError,
  DEFAULT_ARCHIVE_LIMITS,
  readArchive,
  type ArchiveEntry,
} from "../problem-configs/archive-reader";
import { storeBlobs } from "../problem-configs/blobs.service";
import { isFps, readFps } from "./fps/fps-package";
import { isHydro, readHydro } from "./hydro/hydro-package";
import { isKattis, readKattis } from "./kattis/kattis-package";
import { configOf } from "./model/package-config";
import { followLinks } from "./package-links";
import { refuse, type PackageProblem } from "./model/package-model";
import { isPolygon, readPolygon } from "./polygon/polygon-package";

/**
 * The `package.read` job (configs worker): an uploaded problem package read and checked, and each of its
 * problems' files and generated config.json stored as blobs (only once every problem is checked). The API then creates the problems and their
 * first config versions from the result in one transaction (problem-packages.service.ts).
 */

/** The formats in the order they are detected: Kattis before Hydro (both have a problem.yaml). */
const READERS: { format: PackageFormat; is: (files: Files) => boolean; read: (files: Files) => PackageProblem[] }[] = [
  { format: "kattis", is: isKattis, read: (files) => [readKattis(files)] },
  { format: "polygon", is: isPolygon, read: (files) => [readPolygon(files)] },
  { format: "hydro", is: isHydro, read: readHydro },
  { format: "fps", is: isFps, read: readFps },
];
type Files = Map<string, Uint8Array>;

export async function readProblemPackage(
  payload: { uploadDigest: string; format?: PackageFormat; fileName?: string },
  ctx: { em: EntityManager; store: BlobStore },
): Promise<PackageRead> {
  try {
    const files = await filesOf(ctx.store, payload.uploadDigest, payload.fileName);
    if (files.has("config.json")) throw refuse("this is a config archive (it has config.json): upload it to …/configs");
    const reader = payload.format
      ? READERS.find((r) => r.format === payload.format)!
      : READERS.find((r) => r.is(files));
    if (!reader)
      throw refuse(
        "not a package this judge reads: Kattis (problem.yaml and data/), Polygon (problem.xml), Hydro " +
          "(problem.yaml with testdata/) or FPS (one .xml file whose root is <fps>)",
      );
    if (payload.format && !reader.is(files)) throw refuse(`this is not a ${payload.format} package`);
    const checked = reader.read(files).map(checkProblem);
    if (checked.length === 0) throw refuse("the package holds no problem");
    // Every problem's files stored together (an FPS file of 500 items has thousands, many alike).
    const blobs = checked.flatMap((one) => one.files.map(([, data]) => data));
    const stored = await storeBlobs(ctx.em, ctx.store, blobs);
    let at = 0;
    const problems = checked.map((one) =>
      summaryOf(
        one,
        one.files.map(([path]) => ({ path, ...stored[at++] })),
      ),
    );
    return { format: reader.format, problems };
  } catch (error) {
    throw errorToJobFailure(error);
  }
}

/** The problem with its generated config.json, checked; every file of it, config.json last. */
function checkProblem(problem: PackageProblem) {
  const where = problem.title ? `"${problem.title.slice(0, 64)}": ` : "";
  let config: ReturnType<typeof validateConfigJson>;
  try {
    config = validateConfigJson(configOf(problem), { archiveFiles: problem.files.keys() });
  } catch (error) {
    // Which of several problems, when a file holds many.
    if (error instanceof BizError) throw new BizError(error.code, `${where}${error.message}`);
    throw error;
  }
  const files: [string, Uint8Array][] = [...problem.files, ["config.json", serializeConfigJson(config)]];
  return { problem, config, files };
}

function summaryOf(
  { problem, config }: ReturnType<typeof checkProblem>,
  tree: PackageProblemRead["tree"],
): PackageProblemRead {
  const digests = new Map(tree.map((f) => [f.path, f]));
  const subtasks = config.languageDefault?.subtasks ?? [];
  const inSubtask = new Set(subtasks.flatMap((s) => s.cases));
  const cases = config.languageDefault?.cases ?? [];
  return {
    // NUL bytes dropped: no PostgreSQL text holds one, and no statement needs one.
    title: problem.title.replaceAll("\0", "").trim().slice(0, 512) || "Untitled",
    content: problem.content.replaceAll("\0", "").slice(0, 65536),
    tree,
    languages: languageNames(config),
    attachments: attachmentsOf(problem, digests),
    submissions: problem.submissions.map(({ files: _, ...submission }) => submission),
    notes: problem.notes,
    fullScore:
      subtasks.reduce((sum, s) => sum + s.score, 0) +
      cases.reduce((sum, c, i) => sum + (inSubtask.has(i) ? 0 : (c.score ?? 0)), 0),
    casePaths: problem.cases.map((c) => c.input),
  };
}

/** The problem's attachments, each served under a name of its own (a second one of a name is left out, noted). */
function attachmentsOf(problem: PackageProblem, digests: Map<string, { digest: string; size: number }>) {
  const served = new Map<string, PackageProblemRead["attachments"][number]>();
  for (const { path, name: link } of problem.attachments) {
    const name = servedName(link, path);
    const blob = digests.get(path);
    if (!blob) continue;
    if (served.has(name)) problem.notes.push(`${path}: another attachment is served as ${name}; this one is not`);
    else served.set(name, { name, link, digest: blob.digest, size: blob.size });
  }
  return [...served.values()];
}

/**
 * The name an attachment is served under: the name the statement links it by when that is a plain relative
 * path (Hydro's `file://name` without its scheme), else its path in the package below its folder (an FPS
 * image linked as `http://oj.example/upload/1.png` is served as `1.png`).
 */
function servedName(link: string, path: string): string {
  const plain = link.replace(/^file:\/\//, "").split("?")[0];
  const safe = plain && !/^[a-z][a-z0-9+.-]*:|^\/|(^|\/)\.\.?(\/|$)/i.test(plain) && !plain.includes("\\");
  return (safe ? plain : path.split("/").slice(1).join("/") || path).slice(0, 255);
}

/**
 * The upload's files: an FPS file as it is (one .xml), or an archive's entries (the same hostile-archive rules
 * as a config upload), a lone top folder unwrapped.
 */
async function filesOf(store: BlobStore, digest: string, fileName = ""): Promise<Files> {
  const bytes = await store.get(digest);
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 512))
    .replace(/^\uFEFF/, "")
    .trimStart();
  // Under its own name (a refusal then says which file), when that is a plain .xml name.
  const name = fileName.split(/[\\/]/).at(-1) ?? "";
  if (head.startsWith("<")) return new Map([[/^[^\0]{1,200}\.xml$/i.test(name) ? name : "problems.xml", bytes]]);
  let entries: ArchiveEntry[];
  try {
    // Packages are zipped with their own links (Kattis's data/secret linking to samples): followed, not refused.
    entries = await readArchive(bytes, { ...DEFAULT_ARCHIVE_LIMITS, keepLinks: true });
  } catch (error) {
    if (error instanceof ArchiveError) throw new BizError("FileValidationError", error.message);
    throw error;
  }
  entries = followLinks(entries, DEFAULT_ARCHIVE_LIMITS);
  entries = entries.filter((e) => !e.path.startsWith("__MACOSX/") && !e.path.endsWith(".DS_Store"));
  const top = entries[0]?.path.split("/")[0];
  const wrapped = top && entries.every((e) => e.path.startsWith(`${top}/`));
  return new Map(
    (wrapped ? entries.map((e) => ({ path: e.path.slice(top.length + 1), data: e.data })) : entries).map((e) => [
      e.path,
      e.data,
    ]),
  );
}
