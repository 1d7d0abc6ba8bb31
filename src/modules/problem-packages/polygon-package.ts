import { XMLParser } from "fast-xml-parser";
import { programOf, refuse, text } from "./package-model";
import type { PackageCase, PackageProblem, PackageSubmission } from "./package-model";

/**
 * Polygon packages (docs/running-a-course.md "Problem packages"): problem.xml names the problem, the testset's
 * limits and test paths (samples marked), the testlib checker and interactor with their sources, file I/O, and the
 * solutions with their tags. Polygon's tests are files of the package; a generated test that was never
 * written (a package made without its tests) is refused.
 */

/** Polygon's solution tags and the verdict each expects. */
const TAGS: Record<string, string> = {
  main: "accepted",
  accepted: "accepted",
  "wrong-answer": "wrong_answer",
  "time-limit-exceeded": "time_limit_exceeded",
  "time-limit-exceeded-or-accepted": "accepted",
  "memory-limit-exceeded": "memory_limit_exceeded",
  rejected: "wrong_answer",
  failed: "runtime_error",
  "presentation-error": "wrong_answer",
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
  const english = names.find((n) => n.language === "english") ?? names[0];
  const assets = (problem.assets ?? {}) as Node;
  const checker = assets.checker as Node | undefined;
  const interactor = assets.interactor as Node | undefined;
  return {
    format: "polygon",
    title: String(english?.value ?? problem["short-name"] ?? "Untitled"),
    content: "",
    timeMs: Number(testset["time-limit"] ?? 1000),
    memoryMb: Math.max(1, Math.round(Number(testset["memory-limit"] ?? 268435456) / 2 ** 20)),
    cases: casesOf(files, testset),
    compare: checker ? null : { compare: "whitespace" },
    checker: checker ? assetOf(files, checker, "checker") : null,
    interactor: interactor ? assetOf(files, interactor, "interactor") : null,
    fileInput: judging?.["input-file"] ? String(judging["input-file"]) : null,
    fileOutput: judging?.["output-file"] ? String(judging["output-file"]) : null,
    groupScores: new Map(),
    submissions: solutionsOf(problem),
    files,
    notes: [...notes, "the statement is not imported (Polygon keeps it as LaTeX and HTML of its own)"],
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

function solutionsOf(problem: Node): PackageSubmission[] {
  const solutions = list(
    ((problem.assets ?? {}) as Node).solutions && ((problem.assets as Node).solutions as Node).solution,
  );
  return solutions.flatMap((solution) => {
    const path = String((solution.source as Node | undefined)?.path ?? "");
    const expected = TAGS[String(solution.tag)];
    return path && expected ? [{ path, expected }] : [];
  });
}
