import type { EntityManager } from "@mikro-orm/postgresql";
import { posix } from "node:path";
import { BizError } from "../../../core/errors";
import { resolveLanguages, type JudgeCase, type JudgeLanguage } from "../../../core/config-model/config-json";
import { parseMemory, parseTime } from "../../../core/config-model/limits";
import type { BlobStore } from "../../../storage/blob-store";
import type { ArchiveSource } from "../../problem-configs/archive-writer";
import { readConfigJson } from "../../problem-configs/configs.service";
import { latestConfig, treeOf, type TreeEntry } from "../../problem-configs/versions.service";
import type { Problem } from "../../problems/problem.entity";
import {
  defaultFlags,
  folderPath,
  givenFlags,
  groupScoreFile,
  problemYamlOf,
  readYaml,
  validatorArgsFile,
  validatorPath,
} from "./kattis-export-files";

/**
 * A problem's latest config version as a Kattis package, 2025-09 layout (docs/running-a-course.md "Problem
 * packages"). A package imported here goes out as it came in: its cases at their paths with their groups'
 * files, its statements, attachments, submissions, validators and problem.yaml's keys, legacy names said the
 * current way; what the config changed since (a group's score, the limits, the judging) is written over it.
 * A problem from elsewhere gets generated case names. What Kattis cannot say (file I/O, a testlib checker,
 * cases judged in different ways) is refused, not exported wrongly.
 */
const cannot = (why: string) => new BizError("FileDownloadError", `cannot export as a Kattis package: ${why}`);

const CASE = /^data\/(sample|secret)\/.+\.in$/;
const STATEMENT = /^statement\/problem(\.([A-Za-z]{2,3}(-[A-Za-z0-9]+)?))?\.(md|tex|pdf)$/;
const clean = (path: string) => path.replace(/^(\.\/)+/, "");
const isSample = (c: JudgeCase) => c.category === "pretest" || c.category === "sample";
/** A secret case's group folder: data/secret/<group>/…/<name>.in. */
const groupOf = (path: string) =>
  path.startsWith("data/secret/") && path.split("/").length > 3 ? path.split("/")[2] : null;

export async function kattisPackage(em: EntityManager, store: BlobStore, problem: Problem): Promise<ArchiveSource[]> {
  const version = await latestConfig(em, problem);
  if (!version) throw new BizError("ProblemConfigNotFoundError", "the problem has no config version to export");
  const [language] = resolveLanguages(await readConfigJson(em, store, version));
  const program = judgingOf(language.cases);
  const x = exporting(store, new Map((await treeOf(em, version)).map((f) => [f.path, f])));
  const source = readYaml(await x.textOf("problem.yaml"));
  const given = givenFlags(source, await x.textOf("data/secret/test_group.yaml"));
  const flags = program ? (program.flags ?? []) : defaultFlags(given, language.cases[0]);
  for (const [path, entry] of x.tree) {
    const to = folderPath(path, x.tree);
    if (to) x.copy(to, entry);
  }
  const layout = placeCases(language, x.tree);
  // Each case's input in the tree to its input in the package (a file read by two cases goes with the first).
  const moved = new Map(language.cases.map((c, i) => [clean(c.executeInputFile), layout.inputs[i]] as const).reverse());
  copyDataFiles(x, moved);
  writeCases(x, language.cases, layout);
  await writeGroupFiles(x, language, layout);
  // The validator's flags where 2025-09 has them: output_validator_args of data/sample and data/secret.
  for (const top of ["data/sample", "data/secret"]) {
    if (!layout.inputs.some((path) => path.startsWith(`${top}/`))) continue;
    const file = validatorArgsFile(await x.exported(`${top}/test_group.yaml`), flags);
    if (file !== null) x.add(`${top}/test_group.yaml`, file);
  }
  if (program) for (const file of program.files) x.copyFrom(validatorPath(clean(file), program.files.map(clean)), file);
  // The problem's own text only for a package without a statement: never one relabelled as English.
  if (![...x.out.keys()].some((path) => STATEMENT.test(path)) && problem.content)
    x.add("statement/problem.en.md", problem.content);
  await writeProblemYaml(x, source, problem, language);
  return [...x.out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

type Exporting = ReturnType<typeof exporting>;

/** The package being written (`out`, by path) from the version's files (`tree`). */
function exporting(store: BlobStore, tree: Map<string, TreeEntry>) {
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
    /** A tree file's text when it is exported at its own path. */
    exported: (path: string) => (out.has(path) ? textOf(path) : Promise.resolve(undefined)),
    add: (to: string, text: string) => {
      const data = new TextEncoder().encode(text);
      out.set(to, { path: to, size: data.byteLength, read: async () => data });
    },
    copyFrom: (to: string, from: string) => {
      const entry = tree.get(clean(from));
      if (!entry) throw cannot(`${from} is not in the config version`);
      copy(to, entry);
    },
  };
}

/** Each case's input and answer at its place in the package (over what the tree's files put there). */
function writeCases(x: Exporting, cases: JudgeCase[], layout: Layout) {
  for (const [i, c] of cases.entries()) {
    const input = layout.inputs[i];
    const answer = `${input.slice(0, -3)}.ans`;
    x.copyFrom(input, c.executeInputFile);
    if (x.tree.has(clean(c.executeOutputFile))) x.copyFrom(answer, c.executeOutputFile);
    else if (!c.interactor) throw cannot(`${c.executeOutputFile} is not in the config version`);
    // Kattis wants an answer file for every case; an interactor may need none.
    else if (!x.out.has(answer)) x.add(answer, "");
  }
}

/** Each subtask's score in its group's files, where the config's is not what import read from them. */
async function writeGroupFiles(x: Exporting, language: JudgeLanguage, layout: Layout) {
  const share = Math.floor(100 / Math.max(1, language.subtasks.length));
  for (const [k, subtask] of language.subtasks.entries()) {
    const folder = `data/secret/${layout.groups[k]}`;
    const files = {
      testdata: await x.exported(`${folder}/testdata.yaml`),
      testGroup: await x.exported(`${folder}/test_group.yaml`),
    };
    const file = groupScoreFile(folder, files, subtask.score, share);
    if (file) x.add(file.path, file.text);
  }
}

async function writeProblemYaml(
  x: Exporting,
  source: Record<string, unknown>,
  problem: Problem,
  language: JudgeLanguage,
) {
  const languages = [...x.out.keys()].flatMap((path) => {
    const match = STATEMENT.exec(path);
    return match ? [match[2] ?? "en"] : [];
  });
  const facts = {
    id: problem.id,
    title: problem.title,
    scoring: language.subtasks.length > 0,
    interactive: Boolean(language.cases[0].interactor),
    timeMs: Math.max(...language.cases.map((c) => parseTime(c.time))),
    memoryMb: Math.ceil(Math.max(...language.cases.map((c) => parseMemory(c.memory))) / 1024),
    timelimit: await x.textOf(".timelimit"),
    languages: [...new Set(languages)],
  };
  x.add("problem.yaml", problemYamlOf(source, facts));
}

/** The one output validator all cases are judged by (null: the default one), or why Kattis cannot say it. */
function judgingOf(cases: JudgeCase[]) {
  const first = cases[0];
  const same = (c: JudgeCase) =>
    JSON.stringify([c.checker, c.interactor, c.compare, c.epsilon]) ===
    JSON.stringify([first.checker, first.interactor, first.compare, first.epsilon]);
  if (!cases.every(same)) throw cannot("its cases are judged in different ways");
  if (cases.some((c) => c.fileInput || c.fileOutput || c.submittedOutput)) throw cannot("it uses file input or output");
  const program = first.interactor ?? first.checker;
  if (program && program.protocol !== "kattis")
    throw cannot(
      `its ${first.interactor ? "interactor" : "checker"} speaks ${program.protocol ?? "testlib"}'s protocol, ` +
        "not Kattis's (42/43)",
    );
  if (!program && first.compare === "lines-unordered")
    throw cannot('"compare": "lines-unordered" has no Kattis equivalent');
  return program;
}

/** Each case's input in the package (its answer beside it, .ans), each subtask's group folder in data/secret/. */
type Layout = { inputs: string[]; groups: string[] };

/**
 * Where each case goes. A case keeps its path where import would read it back the same: a sample under
 * data/sample and in no subtask, a secret case under data/secret, in its subtask's group folder (one folder
 * per subtask, holding only that subtask's cases) or, when there are subtasks and it is in none, in no folder.
 * The others get generated names (001.in…, by case number), a subtask without a folder a new one (group1…).
 */
function placeCases(language: JudgeLanguage, tree: Map<string, TreeEntry>): Layout {
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
function copyDataFiles(x: Exporting, moved: Map<string, string>) {
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
