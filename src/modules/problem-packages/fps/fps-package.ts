import { checkerOf, solutionsOf } from "./fps-programs";
import { decodeEntities, fpsStatement } from "./fps-statement";
import type { FpsSections } from "./fps-statement";
import { attrOf, encoder, first, holdsElements, list, opensAsFps, parseFps, textOf } from "./fps-xml";
import type { Node } from "./fps-xml";
import { refuse } from "../model/package-model";
import type { PackageCase, PackageProblem } from "../model/package-model";

/**
 * FPS, the Free Problem Set XML of HUSTOJ and the OJs that trade with it (docs/problem-packages.md "FPS"): one
 * .xml file whose `<fps>` holds an `<item>` per problem, each with its limits, HTML statement sections,
 * samples, tests (`<test_input>`/`<test_output>`, paired by their `name` where every one has one, else in
 * order), images as base64, solutions, and a special judge (`<spj>`: HUSTOJ's `spj input answer output`, exit 0
 * accepted; `<tpj>` or one that includes testlib.h: testlib's). Each item becomes a problem with its own files.
 */

const TIME_UNITS: Record<string, number> = { s: 1000, ms: 1 };
const MEMORY_UNITS: Record<string, number> = { mb: 1, kb: 1 / 1024 };

/** Whether the files are one FPS file: exactly one .xml file, whose root element is `<fps>`. */
export function isFps(files: Map<string, Uint8Array>): boolean {
  const paths = [...files.keys()].filter((path) => /\.xml$/i.test(path));
  return paths.length === 1 && opensAsFps(files.get(paths[0])!);
}

/** One problem per `<item>`, in order, each with its own files (data/, spj/, solutions/, statement/). */
export function readFps(files: Map<string, Uint8Array>): PackageProblem[] {
  const paths = [...files.keys()].filter((path) => /\.xml$/i.test(path));
  if (paths.length !== 1)
    throw refuse(`an FPS upload is one .xml file, and this one has ${paths.length} (${paths.join(", ") || "none"})`);
  const [path] = paths;
  const root = parseFps(path, files.get(path)!);
  const items = list(root.item) as Node[];
  if (items.length === 0) throw refuse(`${path}: <fps> holds no <item>, so no problem`);
  const testlib = [...files.keys()].sort().find((p) => p === "testlib.h" || p.endsWith("/testlib.h"));
  const language = attrOf(root, "xml:lang");
  return items.map((item, i) =>
    readItem(typeof item === "object" ? item : {}, i + 1, {
      path,
      language,
      testlib: testlib ? files.get(testlib)! : null,
    }),
  );
}

interface FpsFile {
  path: string;
  language: string | null;
  testlib: Uint8Array | null;
}

function readItem(item: Node, number: number, file: FpsFile): PackageProblem {
  const title = decodeEntities(textOf(first(item, "title"))).trim();
  const where = `item ${number} ${title ? `"${title}"` : "(untitled)"}`;
  const notes: string[] = [];
  const files = new Map<string, Uint8Array>();
  if (textOf(first(item, "interactor")).trim())
    throw refuse(`${where} is interactive (<interactor>): HUSTOJ's interactors have no counterpart here`);
  const checker = checkerOf(item, where, file.testlib, files, notes);
  const cases = casesOf(item, where, checker !== null, files, notes);
  const statement = fpsStatement(sectionsOf(item, where, notes), where, files, notes);
  const timeMs = limitOf(item, "time_limit", where, notes);
  // HUSTOJ's judge.conf sets OJ_TIME_LIMIT_TO_TOTAL=1: the limit also caps the time of all tests together.
  if (cases.filter((c) => c.category === "secret").length > 1)
    notes.push(`${where}: the time limit applies to each test (HUSTOJ may also have applied it to their total)`);
  if (!checker)
    notes.push(`${where}: output compared line by line, spacing aside (HUSTOJ's presentation error is accepted)`);
  return {
    format: "fps",
    title: title || "Untitled",
    ...statement,
    statements: [{ path: file.path, language: attrOf(item, "xml:lang") ?? file.language }],
    timeMs,
    memoryMb: limitOf(item, "memory_limit", where, notes),
    cases,
    compare: checker ? null : { compare: "whitespace" },
    checker,
    interactor: null,
    fileInput: null,
    fileOutput: null,
    groupScores: new Map(),
    submissions: solutionsOf(item, where, files, notes),
    files,
    notes,
  };
}

/** The statement's HTML sections, samples and images, as written. */
function sectionsOf(item: Node, where: string, notes: string[]): FpsSections {
  const section = (tag: string) => {
    const node = first(item, tag);
    if (holdsElements(node)) notes.push(`${where}: <${tag}> holds XML elements, not HTML in CDATA: only its text kept`);
    return textOf(node);
  };
  const outputs = list(item.sample_output);
  return {
    description: section("description"),
    input: section("input"),
    output: section("output"),
    hint: section("hint"),
    source: section("source"),
    samples: list(item.sample_input).map((input, i) => ({ input: textOf(input), output: textOf(outputs[i]) })),
    images: list(item.img).map((img) => ({
      src: textOf(first(img as Node, "src")),
      base64: textOf(first(img as Node, "base64")),
    })),
  };
}

/** A time limit in ms or a memory limit in MB, from a number and its unit (none: seconds, megabytes). */
function limitOf(item: Node, tag: "time_limit" | "memory_limit", where: string, notes: string[]): number {
  const node = first(item, tag);
  const value = textOf(node).trim();
  const time = tag === "time_limit";
  if (!value) {
    notes.push(`${where}: no ${time ? "time limit given: 1 s" : "memory limit given: 256 MB"}`);
    return time ? 1000 : 256;
  }
  const units = time ? TIME_UNITS : MEMORY_UNITS;
  const unit = (attrOf(node, "unit") ?? (time ? "s" : "mb")).trim().toLowerCase();
  const amount = Number(value);
  if (!(unit in units) || !Number.isFinite(amount) || amount <= 0)
    throw refuse(
      `${where}: <${tag} unit="${unit}">${value}</${tag}> is not a positive number of ${Object.keys(units)}`,
    );
  return Math.max(1, time ? Math.round(amount * units[unit]) : Math.ceil(amount * units[unit]));
}

/** Samples (pretests, where they have an output or a special judge can do without) and then the tests. */
function casesOf(item: Node, where: string, judged: boolean, files: Map<string, Uint8Array>, notes: string[]) {
  const cases: PackageCase[] = [];
  const add = (base: string, input: string, answer: string | null, category: PackageCase["category"]) => {
    files.set(`${base}.in`, encoder.encode(input));
    if (answer !== null) files.set(`${base}.out`, encoder.encode(answer));
    cases.push({ input: `${base}.in`, answer: answer === null ? null : `${base}.out`, category, group: null });
  };
  const outputs = list(item.sample_output).map(textOf);
  let samples = 0;
  for (const [i, input] of list(item.sample_input).map(textOf).entries()) {
    const output = outputs[i] ?? "";
    // HUSTOJ writes both tags even for a problem without a sample.
    if (!input.trim() && !output.trim()) continue;
    if (!output.trim() && !judged) notes.push(`${where}: sample ${i + 1} has no output: shown, not judged`);
    else add(`data/sample${++samples}`, input, output, "pretest");
  }
  const tests = testsOf(item, where);
  if (tests.length === 0) {
    const remote = textOf(first(item, "remote_oj")).trim();
    throw refuse(`${where} has no test (<test_input>)${remote ? `: HUSTOJ judges it on ${remote}` : ""}`);
  }
  for (const [i, test] of tests.entries()) {
    if (!test.output?.trim() && !judged)
      throw refuse(
        `${where}: test ${i + 1} has ${test.output === null ? "no" : "an empty"} <test_output>, ` +
          "and without a special judge (<spj>) nothing else says what its output should be",
      );
    add(`data/${i + 1}`, test.input, test.output, "secret");
  }
  return cases;
}

/** By `name` (HUSTOJ writes name.in and name.out) where every test has one, else in order. */
function testsOf(item: Node, where: string): { input: string; output: string | null }[] {
  const inputs = list(item.test_input);
  const outputs = list(item.test_output);
  const inNames = inputs.map((node) => attrOf(node, "name"));
  const outNames = outputs.map((node) => attrOf(node, "name"));
  const unique = (names: (string | null)[]) => names.every(Boolean) && new Set(names).size === names.length;
  if (inputs.length > 0 && unique(inNames) && unique(outNames)) {
    const byName = new Map(outputs.map((node) => [attrOf(node, "name"), textOf(node)]));
    const stray = outNames.find((name) => !inNames.includes(name));
    if (stray) throw refuse(`${where}: <test_output name="${stray}"> has no <test_input> of that name`);
    return inputs.map((node, i) => ({ input: textOf(node), output: byName.get(inNames[i]) ?? null }));
  }
  if (outputs.length > inputs.length)
    throw refuse(`${where}: ${outputs.length} <test_output> for ${inputs.length} <test_input> (they pair in order)`);
  return inputs.map((node, i) => ({ input: textOf(node), output: i < outputs.length ? textOf(outputs[i]) : null }));
}
