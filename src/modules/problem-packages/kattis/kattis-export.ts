import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../../core/errors";
import { resolveLanguages, type JudgeCase, type JudgeLanguage } from "../../../core/config-model/config-json";
import { parseMemory, parseTime } from "../../../core/config-model/limits";
import type { BlobStore } from "../../../storage/blob-store";
import type { ArchiveSource } from "../../problem-configs/archive-writer";
import { readConfigJson } from "../../problem-configs/configs.service";
import { latestConfig, treeOf } from "../../problem-configs/versions.service";
import type { Problem } from "../../problems/problem.entity";
import { PackageVerification } from "../package-verification.entity";
import {
  cannot,
  clean,
  copyDataFiles,
  endLines,
  exporting,
  type Exporting,
  placeCases,
  type Layout,
} from "./kattis-export-cases";
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
import { ownFiles, versionFiles } from "./kattis-export-own";
import { writeInputValidators } from "./kattis-export-validators";
import { DEFAULT_KATTIS_VERSION, type KattisVersion } from "./kattis-export-version";
import { validatorFolder } from "./kattis-package";

/**
 * A problem's latest config version as a Kattis package in `version`'s layout (docs/problem-packages.md "Export
 * as a Kattis package"). A package imported here goes out as it came in: its cases at their paths with their
 * groups' files, its statements, attachments, submissions, validators and problem.yaml's keys said the way the
 * version says them; what the config changed since (a group's score, the limits, the judging) is written over it.
 * A problem from another format gets its statement, attachments and solutions placed as Kattis wants them. What
 * Kattis cannot say (file I/O, a testlib checker, cases judged in different ways) is refused, not exported wrongly.
 */

export async function kattisPackage(
  em: EntityManager,
  store: BlobStore,
  problem: Problem,
  version: KattisVersion = DEFAULT_KATTIS_VERSION,
): Promise<ArchiveSource[]> {
  const config = await latestConfig(em, problem);
  if (!config) throw new BizError("ProblemConfigNotFoundError", "the problem has no config version to export");
  const json = await readConfigJson(em, store, config);
  const [language] = resolveLanguages(json);
  const program = judgingOf(language.cases);
  const x = exporting(store, new Map((await treeOf(em, config)).map((f) => [f.path, f])));
  const imported = await em.findOne(PackageVerification, { problem });
  // Another format's files are not a Kattis layout (Hydro's problem.yaml has title, tag, pid): none pass as such.
  const kattis = !imported || imported.format === "kattis";
  const source = kattis ? readYaml(await x.textOf("problem.yaml")) : {};
  const given = kattis ? givenFlags(source, await x.textOf("data/secret/test_group.yaml")) : [];
  const flags = program ? (program.flags ?? []) : defaultFlags(given, language.cases[0]);
  for (const [path, entry] of x.tree) {
    const to = kattis && folderPath(path, x.tree);
    if (to) x.copy(to, entry);
  }
  const layout = placeCases(language, x.tree);
  // Each case's input in the tree to its input in the package (a file read by two cases goes with the first).
  const moved = new Map(language.cases.map((c, i) => [clean(c.executeInputFile), layout.inputs[i]] as const).reverse());
  copyDataFiles(x, moved);
  writeCases(x, language.cases, layout);
  // Another format's data, judged by the default validator: its text lines ended as Kattis's are.
  if (!kattis && !program)
    await endLines(
      x,
      layout.inputs.flatMap((input) => [input, `${input.slice(0, -3)}.ans`]),
    );
  await writeGroupFiles(x, language, layout);
  // The validator's flags where 2025-09 has them (import reads them there): data/sample's and data/secret's.
  for (const top of ["data/sample", "data/secret"]) {
    if (!layout.inputs.some((path) => path.startsWith(`${top}/`))) continue;
    const file = validatorArgsFile(await x.exported(`${top}/test_group.yaml`), flags);
    if (file !== null) x.add(`${top}/test_group.yaml`, file);
  }
  const sourceVersion = String(source.problem_format_version ?? "legacy");
  const validatorName = program ? copyValidator(x, program.files.map(clean), sourceVersion) : "validator";
  await writeInputValidators(x, json.inputValidators ?? [], kattis);
  const interactive = Boolean(language.cases[0].interactor);
  await ownFiles(em, store, x, { problem, imported, kattis, interactive, version });
  const facts = await problemFacts(x, problem, language, kattis && x.tree.has("problem.yaml"));
  const { yaml, names } = problemYamlOf(source, facts);
  const types = [...(facts.scoring ? ["scoring"] : []), ...(interactive ? ["interactive"] : [])];
  return versionFiles(x, version, { yaml, names, types, custom: Boolean(program), flags }, validatorName);
}

/**
 * The output validator as one folder of its files, at output_validator/ (2025-09's place; versionPath moves it):
 * the whole of its package folder (a header beside a source goes with it, or the program does not compile), else
 * the files the config names. Its name is the package folder's (legacy's output_validators/<name>/, a 2023-07-draft
 * output_validator/<name>/), else `validator`.
 */
function copyValidator(x: Exporting, files: string[], sourceVersion: string): string {
  const paths = [...x.tree.keys()];
  const folder = /^output_validators?\//.test(files[0]) ? validatorFolder(files[0], paths, sourceVersion) : null;
  const all = folder ? paths.filter((path) => path.startsWith(`${folder}/`)) : files;
  for (const file of all) x.copyFrom(validatorPath(file, all, folder), file);
  return folder?.split("/")[1] ?? "validator";
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

/** What verifyproblem takes as a statement: Markdown or LaTeX named by its language. */
const STATEMENT = /^statement\/problem\.([a-z]{2,3}|[a-z]{2}-[A-Z]{2})\.(md|tex)$/;

async function problemFacts(x: Exporting, problem: Problem, language: JudgeLanguage, kattisYaml: boolean) {
  const languages = [...x.out.keys()].flatMap((path) => {
    const match = STATEMENT.exec(path);
    return match ? [match[1]] : [];
  });
  return {
    id: problem.id,
    title: problem.title,
    scoring: language.subtasks.length > 0,
    interactive: Boolean(language.cases[0].interactor),
    timeMs: Math.max(...language.cases.map((c) => parseTime(c.time))),
    memoryMb: Math.ceil(Math.max(...language.cases.map((c) => parseMemory(c.memory))) / 1024),
    timelimit: await x.textOf(".timelimit"),
    kattisYaml,
    languages: [...new Set(languages)],
  };
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
