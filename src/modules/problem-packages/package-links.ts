import { posix } from "node:path";
import type { ArchiveEntry, ArchiveLimits } from "../problem-configs/archive-reader";
import { refuse } from "./model/package-model";

/**
 * A package's own symbolic links, zipped as links (Kattis packages link `data/secret/1.in` to a sample, or one
 * validator's folder to another's): each one that points inside the package becomes a copy of what it points at,
 * a file's content or a folder's files; one that points anywhere else (an absolute path, out through `..`), at
 * nothing, or round in a loop is refused with its path. Nothing here touches a file system: the archive's own
 * paths are resolved against each other.
 */
export function followLinks(entries: ArchiveEntry[], limits: ArchiveLimits): ArchiveEntry[] {
  const links = new Map(entries.flatMap((e) => (e.link === undefined ? [] : [[e.path, e.link] as const])));
  if (links.size === 0) return entries;
  const files = new Map(entries.flatMap((e) => (e.link === undefined ? [[e.path, e.data] as const] : [])));
  const out = new Map(files);
  let total = entries.reduce((sum, e) => sum + e.data.byteLength, 0);
  for (const path of [...links.keys()].sort()) {
    for (const [copy, data] of copiesOf(path, { files, links }, [])) {
      if (out.has(copy)) throw refuse(`${path}: the link's copy ${copy} is already a file of the package`);
      out.set(copy, data);
      total += data.byteLength;
    }
    if (out.size > limits.maxFiles || total > limits.maxTotalBytes)
      throw refuse(`${path}: with its links followed the package is over the upload's limits`);
  }
  return [...out].map(([path, data]) => ({ path, data })).sort((a, b) => (a.path < b.path ? -1 : 1));
}

interface Tree {
  files: Map<string, Uint8Array>;
  links: Map<string, string>;
}

/** The files a link stands for, under the link's own path; `through` holds the links followed to get here. */
function copiesOf(path: string, tree: Tree, through: string[]): [string, Uint8Array][] {
  const target = tree.links.get(path)!;
  if (through.includes(path))
    throw refuse(`${through[0]}: its link goes round in a loop (${[...through, path].join(" → ")})`);
  const at = resolved(path, target, through[0] ?? path);
  const file = tree.files.get(at);
  if (file) return [[path, file]];
  const under = ([p, data]: [string, Uint8Array]): [string, Uint8Array] => [`${path}${p.slice(at.length)}`, data];
  if (tree.links.has(at)) return copiesOf(at, tree, [...through, path]).map(under);
  const below = [...tree.files].filter(([p]) => p.startsWith(`${at}/`));
  const linksBelow = [...tree.links.keys()].filter((p) => p.startsWith(`${at}/`));
  if (below.length === 0 && linksBelow.length === 0)
    throw refuse(`${through[0] ?? path}: its link points at ${target}, which is not in the package`);
  return [...below, ...linksBelow.flatMap((link) => copiesOf(link, tree, [...through, path]))].map(under);
}

/** The target as a path in the package, or a refusal naming the link when it leads out of it. */
function resolved(path: string, target: string, named: string): string {
  if (target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target))
    throw refuse(`${named}: its link points at ${target}, an absolute path outside the package`);
  const joined = posix.normalize(posix.join(posix.dirname(path), target)).replace(/\/$/, "");
  if (joined === ".." || joined.startsWith("../"))
    throw refuse(`${named}: its link points at ${target}, outside the package`);
  // The package's own top: a copy of everything, itself included.
  if (joined === "." || joined === "")
    throw refuse(`${named}: its link points at ${target}, the package itself (a loop)`);
  return joined;
}
