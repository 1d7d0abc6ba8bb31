import type { EntityManager } from "@mikro-orm/postgresql";
import { stringify as yaml } from "yaml";
import { BizError } from "../../core/errors";
import { resolveLanguages, type JudgeCase } from "../../core/config-model/config-json";
import { parseMemory, parseTime } from "../../core/config-model/limits";
import type { BlobStore } from "../../storage/blob-store";
import type { ArchiveSource } from "../problem-configs/archive-writer";
import { readConfigJson } from "../problem-configs/configs.service";
import { latestConfig, treeOf } from "../problem-configs/versions.service";
import type { Problem } from "../problems/problem.entity";

/**
 * A problem's latest config version as a Kattis package, 2023-07 layout (docs/running-a-course.md "Problem packages"):
 * problem.yaml, statement/problem.en.md, data/sample and data/secret (subtasks as groups with their
 * testdata.yaml), and output_validator/ for a Kattis-protocol checker or interactor. What Kattis cannot
 * say (file I/O, a testlib checker, cases judged in different ways) is refused, not exported wrongly.
 */
const cannot = (why: string) => new BizError("FileDownloadError", `cannot export as a Kattis package: ${why}`);

export async function kattisPackage(em: EntityManager, store: BlobStore, problem: Problem): Promise<ArchiveSource[]> {
  const version = await latestConfig(em, problem);
  if (!version) throw new BizError("ProblemConfigNotFoundError", "the problem has no config version to export");
  const tree = new Map((await treeOf(em, version)).map((f) => [f.path, f]));
  const [language] = resolveLanguages(await readConfigJson(em, store, version));
  const cases = language.cases;
  const first = cases[0];
  const same = (c: JudgeCase) =>
    JSON.stringify([c.checker, c.interactor, c.compare, c.epsilon]) ===
    JSON.stringify([first.checker, first.interactor, first.compare, first.epsilon]);
  if (!cases.every(same)) throw cannot("its cases are judged in different ways");
  if (cases.some((c) => c.fileInput || c.fileOutput || c.submittedOutput)) throw cannot("it uses file input or output");
  const program = first.interactor ?? first.checker;
  if (program && program.protocol !== "kattis")
    throw cannot(`its ${first.interactor ? "interactor" : "checker"} speaks testlib's protocol, not Kattis's (42/43)`);
  if (!program && first.compare === "lines-unordered")
    throw cannot('"compare": "lines-unordered" has no Kattis equivalent');

  const files: ArchiveSource[] = [];
  const add = (path: string, data: Uint8Array) => files.push({ path, size: data.byteLength, read: async () => data });
  const copy = (path: string, from: string) => {
    const entry = tree.get(from.replace(/^(\.\/)+/, ""));
    if (!entry) throw cannot(`${from} is not in the config version`);
    files.push({ path, size: entry.size, read: () => store.get(entry.digest) });
  };
  const encode = (text: string) => new TextEncoder().encode(text);

  const flags = program
    ? (program.flags ?? [])
    : first.compare === "float"
      ? ["float_tolerance", String(first.epsilon)]
      : first.compare === "whitespace" || first.compare === "exact"
        ? ["case_sensitive"]
        : [];
  const groupOf = new Map(language.subtasks.flatMap((s, g) => s.cases.map((i) => [i, g] as const)));
  add(
    "problem.yaml",
    encode(
      yaml({
        problem_format_version: "2023-07-draft",
        name: problem.title,
        type: first.interactor ? "interactive" : language.subtasks.length > 0 ? "scoring" : "pass-fail",
        limits: {
          time_limit: Math.max(...cases.map((c) => parseTime(c.time))) / 1000,
          memory: Math.ceil(Math.max(...cases.map((c) => parseMemory(c.memory))) / 1024),
        },
        ...(flags.length > 0 ? { validator_flags: flags.join(" ") } : {}),
      }),
    ),
  );
  if (problem.content) add("statement/problem.en.md", encode(problem.content));
  for (const [s, subtask] of language.subtasks.entries())
    add(`data/secret/group${s + 1}/testdata.yaml`, encode(yaml({ accept_score: subtask.score })));
  for (const [i, c] of cases.entries()) {
    const name = String(i + 1).padStart(3, "0");
    const group = groupOf.get(i);
    const dir =
      c.category === "pretest" || c.category === "sample"
        ? "data/sample"
        : group === undefined
          ? "data/secret"
          : `data/secret/group${group + 1}`;
    copy(`${dir}/${name}.in`, c.executeInputFile);
    if (tree.has(c.executeOutputFile.replace(/^(\.\/)+/, ""))) copy(`${dir}/${name}.ans`, c.executeOutputFile);
    else if (first.interactor) add(`${dir}/${name}.ans`, new Uint8Array());
    else throw cannot(`${c.executeOutputFile} is not in the config version`);
  }
  // The validator's sources under output_validator/, each by the path below its own directory.
  if (program) for (const source of program.files) copy(`output_validator/${source.split("/").slice(-1)[0]}`, source);
  return files;
}
