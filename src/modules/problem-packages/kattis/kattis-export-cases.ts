import { posix } from "node:path";
import type { JudgeCase, JudgeLanguage } from "../../../core/config-model/config-json";
import { BizError } from "../../../core/errors";
import type { BlobStore } from "../../../storage/blob-store";
import type { ArchiveSource } from "../../problem-configs/archive-writer";
import type { TreeEntry } from "../../problem-configs/versions.service";

/**
 * The package an export writes (kattis-export.ts), and where its cases go: their paths, group folders and own
 * files.
 */

export const cannot = (why: string) => new BizError("FileDownloadError", `cannot export as a Kattis package: ${why}`);

export const CASE = /^data\/(sample|secret)\/.+\.in$/;
export const clean = (path: string) => path.replace(/^(\.\/)+/, "");
export const isSample = (c: JudgeCase) => c.category === "pretest" || c.category === "sample";
/** A secret case's group folder: data/secret/<group>/…/<name>.in. */
const groupOf = (path: string) =>
  path.startsWith("data/secret/") && path.split("/").length > 3 ? path.split("/")[2] : null;

/** Each case's input in the package (its answer beside it, .ans), each subtask's group folder in data/secret/. */
export type Layout = { inputs: string[]; groups: string[] };

/**
 * Where each case goes. A case keeps its path where import would read it back the same: a sample under
 * data/sample and in no subtask, a secret case under data/secret, in its subtask's group folder (one folder
 * per subtask, holding only that subtask's cases) or, when there are subtasks and it is in none, in no folder.
 * The others get generated names (001.in…, by case number), a subtask without a folder a new one (group1…).
 */
export function placeCases(language: JudgeLanguage, tree: Map<string, TreeEntry>): Layout {
  const { cases, subtasks } = language;
  const subtaskOf = new Map(subtasks.flatMap((s, k) => s.cases.map((i) => [i, k] as const)));
  const own = cases.map((c, i) => {
    const path = clean(c.executeInputFile);
    if (!CASE.test(path) || !tree.has(path) || path.startsWith("data/sample/") !== isSample(c)) return null;
    return isSample(c) && subtaskOf.has(i) ? null : path;
  });
  const sole = subtasks.map((s) => {
    const folders = new Set(s.cases.map((i) => (own[i] ? groupOf(own[i]) : null)));
    return folders.size === 1 ? [...folders][0] : null;
  });
  const groups: (string | null)[] = sole.map((f, k) =>
    f && sole.indexOf(f) === k && sole.lastIndexOf(f) === k ? f : null,
  );
  const used = new Set<string>();
  const inputs: (string | null)[] = own.map((path, i) => {
    const k = subtaskOf.get(i);
    const fits = k === undefined ? subtasks.length === 0 || (path && groupOf(path) === null) : groups[k] !== null;
    if (!path || !fits || used.has(path)) return null;
    used.add(path);
    return path;
  });
  const taken = new Set(inputs.flatMap((path) => (path && groupOf(path) ? [groupOf(path)] : [])));
  for (const [k, folder] of groups.entries()) {
    if (folder !== null) continue;
    let name = `group${k + 1}`;
    for (let n = 2; taken.has(name); n++) name = `group${k + 1}-${n}`;
    groups[k] = name;
    taken.add(name);
  }
  return {
    groups: groups as string[],
    inputs: inputs.map((path, i) => {
      if (path) return path;
      const k = subtaskOf.get(i);
      const dir = isSample(cases[i]) ? "data/sample" : k === undefined ? "data/secret" : `data/secret/${groups[k]}`;
      let name = `${dir}/${String(i + 1).padStart(3, "0")}`;
      while (used.has(`${name}.in`)) name = `${name}-${i + 1}`;
      used.add(`${name}.in`);
      return `${name}.in`;
    }),
  };
}

/**
 * The other files under data/sample and data/secret that go with what is exported: a case's own files (.ans,
 * .desc, .hint, .png, .yaml, .in.statement, .files/…, by its name; `moved`: each case's input in the tree to its
 * input in the package), and the settings and notes of the folders a case kept is in (testdata.yaml,
 * test_group.yaml), up to data/. A dropped case's files stay out.
 */
export function copyDataFiles(x: Exporting, moved: Map<string, string>) {
  const stems = new Set([...x.tree.keys()].filter((path) => CASE.test(path)).map((path) => path.slice(0, -3)));
  const folders = new Set<string>();
  for (const [from, to] of moved)
    for (let folder = posix.dirname(to); from === to && folder !== "."; folder = posix.dirname(folder))
      folders.add(folder);
  for (const [path, entry] of x.tree) {
    if (!/^data\/(sample|secret)\//.test(path) && posix.dirname(path) !== "data") continue;
    if (CASE.test(path)) continue;
    // The longest case name the file's name extends (a.b.ans belongs to a.b.in, not to a.in).
    const stem = [...path.matchAll(/\./g)]
      .map((dot) => path.slice(0, dot.index))
      .reverse()
      .find((candidate) => stems.has(candidate));
    const to = stem !== undefined && moved.get(`${stem}.in`);
    if (to) x.copy(`${to.slice(0, -3)}${path.slice(stem.length)}`, entry);
    else if (stem === undefined && folders.has(posix.dirname(path))) x.copy(path, entry);
  }
}

export type Exporting = ReturnType<typeof exporting>;

/** The package being written (`out`, by path) from the version's files (`tree`). */
export function exporting(store: BlobStore, tree: Map<string, TreeEntry>) {
  const out = new Map<string, ArchiveSource>();
  const copy = (to: string, entry: TreeEntry) =>
    out.set(to, { path: to, size: entry.size, read: () => store.get(entry.digest) });
  const textOf = async (path: string) => {
    const entry = tree.get(path);
    return entry ? new TextDecoder().decode(await store.get(entry.digest)) : undefined;
  };
  return {
    tree,
    out,
    copy,
    textOf,
    /** A tree file's bytes; one the config names but the version lacks cannot be exported. */
    bytesOf: (path: string) => {
      const entry = tree.get(clean(path));
      if (!entry) throw cannot(`${path} is not in the config version`);
      return store.get(entry.digest);
    },
    /** A tree file's text when it is exported at its own path. */
    exported: (path: string) => (out.has(path) ? textOf(path) : Promise.resolve(undefined)),
    remove: (path: string) => out.delete(path),
    add: (to: string, text: string | Uint8Array) => {
      const data = typeof text === "string" ? new TextEncoder().encode(text) : text;
      out.set(to, { path: to, size: data.byteLength, read: async () => data });
    },
    copyFrom: (to: string, from: string) => {
      const entry = tree.get(clean(from));
      if (!entry) throw cannot(`${from} is not in the config version`);
      copy(to, entry);
    },
  };
}

/**
 * Each of `paths` (cases' inputs and answers) that is non-empty UTF-8 text without a final newline, with one:
 * verifyproblem warns of each ("does not end with '\n'") and Kattis's input is lines ending in one. For the
 * caller's problems only (judged by the default validator): every comparison of ours ignores one final newline
 * (`exact` too, compare.ts ExactReader) and Kattis's default validator compares tokens, so no verdict changes.
 * Read once here to decide, again when the archive is written: no file is held in memory meanwhile.
 */
export async function endLines(x: Exporting, paths: string[]) {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  for (const path of paths) {
    const file = x.out.get(path);
    if (!file || file.size === 0) continue;
    const data = await file.read();
    if (data[data.length - 1] === LF) continue;
    try {
      utf8.decode(data);
    } catch {
      continue;
    }
    const read = file.read;
    x.out.set(path, { path, size: file.size + 1, read: async () => Buffer.concat([await read(), NEWLINE]) });
  }
}

const LF = 0x0a;
const NEWLINE = new Uint8Array([LF]);
