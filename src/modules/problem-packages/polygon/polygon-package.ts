import { XMLParser } from "fast-xml-parser";
import type { CaseResult } from "../../../core/judge-protocol";
import { LANGUAGES } from "../model/package-config";
import { languageOf } from "../model/package-languages";
import { programOf, refuse, text } from "../model/package-model";
import type { PackageCase, PackageProblem, PackageSubmission } from "../model/package-model";
import { polygonStatement } from "./polygon-statement";

const FAILURES: CaseResult[] = [
  "wrong_answer",
  "time_limit_exceeded",
  "memory_limit_exceeded",
  "output_limit_exceeded",
  "runtime_error",
];

/**
 * Polygon packages (docs/problem-packages.md): problem.xml names the problem, the testset's
 * limits and test paths (samples marked), the testlib checker, interactor and validators with their sources, file
 * I/O, and the solutions with their tags. Polygon's tests are files of the package; a generated test that was never
 * written (a package made without its tests) is refused.
 */

/**
 * Polygon's solution tags as verdict rules (Polygon's invocation check): main and accepted pass every test;
 * rejected fails one in any way; the others fail one test with their verdict and pass or fail the rest only
 * so (presentation error: a wrong answer here, which has no presentation verdict).
 */
const TAGS: Record<string, { permitted: CaseResult[]; required: CaseResult[] }> = {
  main: { permitted: ["accepted"], required: [] },
  accepted: { permitted: ["accepted"], required: [] },
  rejected: { permitted: [], required: FAILURES },
  "wrong-answer": { permitted: ["accepted", "wrong_answer"], required: ["wrong_answer"] },
  "presentation-error": { permitted: ["accepted", "wrong_answer"], required: ["wrong_answer"] },
  "time-limit-exceeded": { permitted: ["accepted", "time_limit_exceeded"], required: ["time_limit_exceeded"] },
  "time-limit-exceeded-or-accepted": { permitted: ["accepted", "time_limit_exceeded"], required: [] },
  "time-limit-exceeded-or-memory-limit-exceeded": {
    permitted: ["accepted", "time_limit_exceeded", "memory_limit_exceeded"],
    required: ["time_limit_exceeded", "memory_limit_exceeded"],
  },
  "memory-limit-exceeded": { permitted: ["accepted", "memory_limit_exceeded"], required: ["memory_limit_exceeded"] },
  failed: { permitted: ["accepted", "runtime_error"], required: ["runtime_error"] },
};

export const isPolygon = (files: Map<string, Uint8Array>) => files.has("problem.xml");

type Node = Record<string, unknown>;
const list = (value: unknown): Node[] => (value === undefined ? [] : ([value].flat() as Node[]));

export function readPolygon(files: Map<string, Uint8Array>): PackageProblem {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", parseAttributeValue: false });
  let xml: Node;
  try {
    xml = parser.parse(text(files.get("problem.xml")), true) as Node;
  } catch (error) {
    throw refuse(`problem.xml is not valid XML (${error instanceof Error ? error.message : error})`);
  }
  const problem = xml.problem as Node | undefined;
  if (!problem) throw refuse("problem.xml has no <problem> element");
  const notes: string[] = [];
  const judging = problem.judging as Node | undefined;
  const testsets = list(judging?.testset);
  const testset = testsets.find((t) => t.name === "tests") ?? testsets[0];
  if (!testset) throw refuse("problem.xml: <judging> has no <testset>");
  if (testsets.length > 1) notes.push(`only the testset "${testset.name}" is imported`);
  const names = list((problem.names as Node | undefined)?.name);
  const statement = polygonStatement(files, names, notes);
  const assets = (problem.assets ?? {}) as Node;
  const checker = assets.checker as Node | undefined;
  const interactor = assets.interactor as Node | undefined;
  return {
    format: "polygon",
    title: statement.title || String(problem["short-name"] ?? "Untitled"),
    content: statement.content,
    statements: statement.statements,
    attachments: statement.attachments,
    timeMs: Number(testset["time-limit"] ?? 1000),
    memoryMb: Math.max(1, Math.round(Number(testset["memory-limit"] ?? 268435456) / 2 ** 20)),
    cases: casesOf(files, testset),
    compare: checker ? null : { compare: "whitespace" },
    checker: checker ? assetOf(files, checker, "checker") : null,
    interactor: interactor ? assetOf(files, interactor, "interactor") : null,
    inputValidators: validatorsOf(files, assets, notes),
    fileInput: judging?.["input-file"] ? String(judging["input-file"]) : null,
    fileOutput: judging?.["output-file"] ? String(judging["output-file"]) : null,
    groupScores: new Map(),
    submissions: solutionsOf(problem, files),
    files,
    notes,
  };
}

/** `tests/%02d`-style patterns, one test per <test>; a sample is a pretest, the rest secret. */
function casesOf(files: Map<string, Uint8Array>, testset: Node): PackageCase[] {
  const tests = list((testset.tests as Node | undefined)?.test);
  const inputPattern = String(testset["input-path-pattern"] ?? "tests/%02d");
  const answerPattern = String(testset["answer-path-pattern"] ?? "tests/%02d.a");
  const path = (pattern: string, n: number) =>
    pattern.replace(/%0?(\d*)d/, (_, width) => String(n).padStart(Number(width || 0), "0"));
  return tests.map((test, i) => {
    const input = path(inputPattern, i + 1);
    if (!files.has(input))
      throw refuse(
        test.method === "generated"
          ? `test ${i + 1} is generated and ${input} is not in the package: make the package with its tests`
          : `test ${i + 1}: ${input} is not in the package`,
      );
    const answer = path(answerPattern, i + 1);
    return {
      input,
      answer: files.has(answer) ? answer : null,
      category: test.sample === "true" ? ("pretest" as const) : ("secret" as const),
      group: null,
    };
  });
}

/** A checker or interactor: its source and the package's resources (testlib.h) it includes. */
function assetOf(files: Map<string, Uint8Array>, asset: Node, name: "checker" | "interactor") {
  const source = String((asset.source as Node | undefined)?.path ?? "");
  if (!source || !files.has(source))
    throw refuse(`problem.xml: the ${name}'s source ${source || "(none)"} is not in the package`);
  if (asset.type && asset.type !== "testlib")
    throw refuse(`problem.xml: a ${asset.type} ${name} is not supported (testlib)`);
  const headers = [...files.keys()].filter((p) => p.startsWith("files/") && /\.(h|hpp)$/.test(p));
  const built = programOf([source], name, `the ${name}`);
  // The headers sit beside the source, where its #include "testlib.h" finds them.
  return { ...built, files: [source, ...headers], protocol: "testlib" as const };
}

/**
 * The validators (testlib's: the test on stdin, exit 0 valid), each built as the checker is, with the package's
 * headers beside it. Kept in config.json for the export, never run here: one we could not build (its source
 * missing, another language) is left out with a note, as every validator was before.
 */
function validatorsOf(files: Map<string, Uint8Array>, assets: Node, notes: string[]) {
  const validators = list((assets.validators as Node | undefined)?.validator);
  const headers = [...files.keys()].filter((p) => p.startsWith("files/") && /\.(h|hpp)$/.test(p));
  return validators.flatMap((validator, i) => {
    const source = String((validator.source as Node | undefined)?.path ?? "");
    try {
      if (!files.has(source)) throw new Error("missing");
      const built = programOf([source], `validator${i > 0 ? i + 1 : ""}`, "the validator");
      return [{ ...built, files: [source, ...headers], protocol: "testlib" as const }];
    } catch {
      notes.push(
        `problem.xml: the validator ${source || "(no source)"} is not a C, C++ or Python source of the package`,
      );
      return [];
    }
  });
}

function solutionsOf(problem: Node, files: Map<string, Uint8Array>): PackageSubmission[] {
  const solutions = list(
    ((problem.assets ?? {}) as Node).solutions && ((problem.assets as Node).solutions as Node).solution,
  );
  return solutions.flatMap((solution) => {
    const source = (solution.source ?? {}) as Node;
    const path = String(source.path ?? "");
    if (!path) return [];
    const tag = String(solution.tag ?? "");
    const rule = TAGS[tag];
    const declared = polygonLanguage(String(source.type ?? ""));
    const choice = !rule
      ? { language: null, skipped: `the tag "${tag}" is not one of Polygon's verdict tags` }
      : !files.has(path)
        ? { language: null, skipped: `${path} is not in the package` }
        : languageOf([path], files, LANGUAGES, declared);
    const rules = rule ? [{ ...rule, source: `tag ${tag}` }] : [];
    return [{ path, files: [path], expected: tag, rules, ...choice }];
  });
}

/** Polygon's source types (`cpp.g++17`, `python.3`, `java11`, `c.gcc`) as language names. */
function polygonLanguage(type: string): string | null {
  if (!type) return null;
  if (/^python\.(2|pypy2)/.test(type)) return "python2";
  if (/^python\./.test(type)) return "python3";
  const family = type.split(".")[0].replace(/\d+$/, "");
  return family === "js" ? "javascript" : family;
}
