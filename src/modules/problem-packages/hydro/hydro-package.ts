import { parse as parseYaml } from "yaml";
import { PRESET_NAMES, PRESETS } from "../../../core/config-model/presets";
import { naturalCompare } from "./hydro-case-names";
import { judgingOf } from "./hydro-judging";
import { isMapping, readTestdata, type TestdataIndex, type Yaml } from "./hydro-testdata";
import { languageOf } from "../model/package-languages";
import { refuse, text } from "../model/package-model";
import { mathToTex } from "../model/statement-math";
import type { PackageAttachment, PackageProblem, PackageStatement, PackageSubmission } from "../model/package-model";

/**
 * Hydro's problem packages, as its `ProblemModel.import` reads them and its `export` writes them: problem.yaml
 * (title, tag, pid, …), the statement as problem.md or problem_<language>.md, testdata/ (config.yaml and the
 * data; see hydro-testdata.ts), additional_file/ (files the statement links as `file://name`) and std/ (reference
 * solutions Hydro judges on import). An export holds several problems, one per top folder; a folder without
 * problem.yaml is skipped, as Hydro skips it. The statement shown is the English one, else another labelled one,
 * else problem.md; the others stay among the files.
 */

/** problem.md, or problem_<language>.md (Hydro takes any one character for the `_`: problem.en.md). */
const STATEMENT = /^problem(?:.([A-Za-z_]+))?\.md$/;
/** A PDF statement: served as an attachment, as Hydro links it from the statement it makes. */
const PDF_STATEMENT = /^problem(?:.[A-Za-z_]+)?\.pdf$/;
/** Every preset that runs a program, as configOf offers them. */
const LANGUAGES = PRESET_NAMES.filter((name) => !("outputOnly" in PRESETS[name]));
const STD = "std/";
const ATTACHMENTS = "additional_file/";

/** problem.yaml beside testdata/ or a statement, at the top or in each top folder holding one; not Kattis's data/. */
export function isHydro(files: Map<string, Uint8Array>): boolean {
  const roots = problemRoots(files);
  return roots.length > 0 && roots.every((root) => looksLikeHydro([...subtree(files, root).keys()]));
}

function looksLikeHydro(paths: string[]): boolean {
  const testdata = paths.some((p) => p.startsWith("testdata/"));
  if (!testdata && paths.some((p) => p.startsWith("data/"))) return false;
  return testdata || paths.some((p) => STATEMENT.test(p));
}

/** Each problem's folder, "" for a package of one problem at the top, in Hydro's order of names. */
function problemRoots(files: Map<string, Uint8Array>): string[] {
  if (files.has("problem.yaml")) return [""];
  const roots = [...files.keys()].flatMap((p) => (/^[^/]+\/problem\.yaml$/.test(p) ? [p.split("/")[0]] : []));
  return roots.sort(naturalCompare).map((folder) => `${folder}/`);
}

/** The files under a problem's folder, by their paths in it. */
function subtree(files: Map<string, Uint8Array>, root: string): Map<string, Uint8Array> {
  if (!root) return files;
  return new Map(
    [...files].flatMap(([p, data]) => (p.startsWith(root) ? [[p.slice(root.length), data] as const] : [])),
  );
}

export function readHydro(files: Map<string, Uint8Array>): PackageProblem[] {
  const roots = problemRoots(files);
  if (roots.length === 0) throw refuse("no problem.yaml, at the top or in a top folder");
  const problems = roots.map((root) => readProblem(subtree(files, root), root));
  const folders = new Set([...files.keys()].filter((p) => p.includes("/")).map((p) => `${p.split("/")[0]}/`));
  const skipped = roots[0] ? [...folders].filter((f) => !roots.includes(f)).sort(naturalCompare) : [];
  if (skipped.length > 0) problems[0].notes.push(`${skipped.join(", ")}: no problem.yaml, skipped (as Hydro skips)`);
  return problems;
}

function readProblem(files: Map<string, Uint8Array>, root: string): PackageProblem {
  const yaml = yamlOf(files, "problem.yaml", root);
  if (!isMapping(yaml)) throw refuse(`${root}problem.yaml is not a mapping`);
  const title = yaml.title || yaml.name;
  if (typeof title !== "string" || !title.trim())
    throw refuse(`${root}problem.yaml: title is ${title ? "not text" : "missing"} (Hydro requires one)`);
  const notes: string[] = [];
  const configPath = ["testdata/config.yaml", "testdata/config.yml"].find((p) => files.has(p)) ?? null;
  if (!configPath && files.has("testdata/config.ini"))
    throw refuse(`${root}testdata/config.ini: Hydro's legacy config is not read; write it as config.yaml`);
  const config = configPath ? (yamlOf(files, configPath, root) ?? {}) : {};
  const at = `${root}${configPath ?? "testdata/config.yaml"}`;
  if (!isMapping(config)) throw refuse(`${at} is not a mapping`);
  const index = testdataIndex(files);
  const judging = judgingOf(config, { at, files, index, notes });
  const testdata = readTestdata(config, { at, index, interactive: judging.interactor !== null });
  const statements = statementsOf(files);
  const shown = shownStatement(statements);
  const written = shown ? text(files.get(shown.path)) : typeof yaml.content === "string" ? yaml.content : "";
  // A statement pasted from a rendered page holds each formula as KaTeX's or MathJax's HTML: its TeX, once.
  const content = mathToTex(written);
  for (const other of statements.filter((s) => s !== shown))
    notes.push(`${other.path} kept among the files (not shown)`);
  const attachments = attachmentsOf(files, notes);
  if (!content && !attachments.some((a) => PDF_STATEMENT.test(a.path)))
    notes.push("no statement (problem.md or problem_<language>.md)");
  return {
    format: "hydro",
    title: title.trim(),
    content,
    statements,
    attachments,
    timeMs: testdata.timeMs,
    memoryMb: testdata.memoryMb,
    cases: testdata.cases,
    ...judging,
    groupScores: testdata.groupScores,
    groupDependsOn: testdata.groupDependsOn,
    submissions: submissionsOf(files),
    files,
    notes: [...problemYamlNotes(yaml), ...notes, ...testdata.notes, ...layoutNotes(files)],
  };
}

function yamlOf(files: Map<string, Uint8Array>, path: string, root: string): unknown {
  try {
    return parseYaml(text(files.get(path)));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw refuse(`${root}${path} is not valid YAML (${reason})`);
  }
}

/** testdata/ by file name, as Hydro stores it: one flat folder, a subfolder's files lifted into it. */
function testdataIndex(files: Map<string, Uint8Array>): TestdataIndex {
  const paths = [...files.keys()].filter((p) => p.startsWith("testdata/")).sort(naturalCompare);
  const index: TestdataIndex = new Map();
  for (const depth of [1, 2])
    for (const path of paths) {
      const parts = path.split("/").slice(1);
      if (parts.length === depth && !index.has(parts[depth - 1])) index.set(parts[depth - 1], path);
    }
  return index;
}

function statementsOf(files: Map<string, Uint8Array>): PackageStatement[] {
  return [...files.keys()]
    .filter((path) => STATEMENT.test(path))
    .sort()
    .map((path) => ({ path, language: STATEMENT.exec(path)![1] ?? null }));
}

/** English, else the first other labelled one, else problem.md. */
function shownStatement(statements: PackageStatement[]): PackageStatement | undefined {
  const labelled = statements.filter((s) => s.language !== null);
  return labelled.find((s) => /^en(_|$)/i.test(s.language!)) ?? labelled[0] ?? statements[0];
}

/**
 * additional_file/'s own files by their names, which the statement links as `file://name` (URL-encoded or
 * not; linkAttachments resolves both), and a PDF statement, which Hydro shows by such a link too.
 */
function attachmentsOf(files: Map<string, Uint8Array>, notes: string[]): PackageAttachment[] {
  const paths = [...files.keys()].sort();
  const own = paths.filter((p) => p.startsWith(ATTACHMENTS) && !p.slice(ATTACHMENTS.length).includes("/"));
  // additional_file/problem.pdf, if there is one, is what Hydro's file://problem.pdf shows.
  const pdfs = paths.filter((p) => PDF_STATEMENT.test(p) && !own.includes(`${ATTACHMENTS}${p}`));
  for (const pdf of pdfs) notes.push(`${pdf}: a PDF statement is not shown as text; it is served as an attachment`);
  return [
    ...own.map((path) => ({ path, name: path.slice(ATTACHMENTS.length) })),
    ...pdfs.map((p) => ({ path: p, name: p })),
  ];
}

/** std/'s files: reference solutions, which Hydro judges on import; each should be accepted. */
function submissionsOf(files: Map<string, Uint8Array>): PackageSubmission[] {
  const paths = [...files.keys()].filter((p) => p.startsWith(STD) && !p.slice(STD.length).includes("/"));
  return paths.sort(naturalCompare).map((path) => ({
    path,
    files: [path],
    expected: "std",
    rules: [{ permitted: ["accepted" as const], required: [], source: STD }],
    ...languageOf([path], files, LANGUAGES),
  }));
}

/** What problem.yaml has that a problem here does not keep. */
function problemYamlNotes(yaml: Yaml): string[] {
  const notes: string[] = [];
  const tags = Array.isArray(yaml.tag) ? yaml.tag.map(String) : [];
  if (tags.length > 0) notes.push(`problem.yaml: tags not kept (a problem here has none): ${tags.join(", ")}`);
  if (yaml.pid) notes.push(`problem.yaml: pid ${yaml.pid} not kept (the problem gets its own url)`);
  const others = Object.keys(yaml).filter((key) => !["title", "name", "tag", "pid", "content"].includes(key));
  if (others.length > 0) notes.push(`problem.yaml: ${others.join(", ")} not kept`);
  return notes;
}

/** Files Hydro's import would treat in its own way that are only kept among the version's files here. */
function layoutNotes(files: Map<string, Uint8Array>): string[] {
  const paths = [...files.keys()];
  const notes: string[] = [];
  if (paths.some((p) => p.startsWith("solution/")))
    notes.push("solution/: Hydro's written solutions (editorials) are kept among the files, not shown");
  if (paths.some((p) => p.startsWith("submissions/")))
    notes.push("submissions/ is not read (Hydro judges its files without an expected verdict)");
  if (paths.some((p) => p.startsWith(ATTACHMENTS) && p.slice(ATTACHMENTS.length).includes("/")))
    notes.push(`${ATTACHMENTS}'s subfolders are not attachments (Hydro takes only the folder's own files)`);
  if (paths.some((p) => p.startsWith("testdata/") && p.split("/").length > 3))
    notes.push("testdata/: files two folders deep are not read (Hydro takes the data and one level of folders)");
  return notes;
}
