import { naturalCompare, subtasksFromNames } from "./hydro-case-names";
import { groupsOf, type Subtask, type SubtaskCase } from "./hydro-subtasks";
import { refuse } from "../model/package-model";
import type { PackageCase } from "../model/package-model";

/**
 * A Hydro problem's test cases and their scores from testdata/config.yaml (`cases`, `subtasks`), or from the
 * data's file names when it lists none, as Hydro's judge reads them (`readYamlCases`, `normalizeSubtasks`):
 * limits default to 1 s and 256 MB; a subtask without a score shares out what the others leave of 100, and
 * a `sum` subtask's cases share out its score; `min`, the default type, scores a subtask only when all pass.
 */

export type Yaml = Record<string, unknown>;

/** testdata/ by the names Hydro stores its files under: one flat folder (its import lifts subfolders' files). */
export type TestdataIndex = Map<string, string>;

export interface HydroTestdata {
  timeMs: number;
  memoryMb: number;
  cases: PackageCase[];
  groupScores: Map<string, number>;
  groupDependsOn: Map<string, string[]>;
  notes: string[];
}

interface Context {
  /** "testdata/config.yaml", under the problem's folder in a package of several. */
  at: string;
  index: TestdataIndex;
  interactive: boolean;
}

/** Limits in ms and MiB; null: none given down to here (Hydro's default then). */
type Limits = { time: number | null; memory: number | null };

export const isMapping = (value: unknown): value is Yaml =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A file config.yaml names, found as Hydro's judge finds it (`a/b.in` is looked up as `b.in` first). */
export function findTestdata(index: TestdataIndex, name: string): string | null {
  return (name.includes("/") ? index.get(name.split("/")[1]) : undefined) ?? index.get(name) ?? null;
}

/** Hydro's time: a number or whole number as text is milliseconds; else 1s, 1.5s, 500ms, 500us. */
export function hydroTimeMs(value: unknown, where: string): number {
  const match = /^([0-9]+(?:\.[0-9]*)?)([mu]?)s?$/i.exec(String(value));
  const unit = { "": 1000, m: 1, u: 0.001 }[match?.[2].toLowerCase() ?? ""] ?? Number.NaN;
  const ms = Number.isSafeInteger(Number(value)) ? Number(value) : match ? Number(match[1]) * unit : Number.NaN;
  if (!(Math.floor(ms) > 0)) throw refuse(`${where} ${JSON.stringify(value)} is not a time limit (1s, 500ms)`);
  return Math.floor(ms);
}

/** Hydro's memory: a number or whole number as text is MiB; else 256m, 256MB, 1g, 65536k (rounded up). */
export function hydroMemoryMb(value: unknown, where: string): number {
  const match = /^([0-9]+(?:\.[0-9]*)?)([kmg])b?$/i.exec(String(value));
  const unit = { k: 1 / 1024, m: 1, g: 1024 }[match?.[2].toLowerCase() ?? ""] ?? Number.NaN;
  const mb = Number.isSafeInteger(Number(value)) ? Number(value) : match ? Number(match[1]) * unit : Number.NaN;
  if (!(Math.ceil(mb) > 0)) throw refuse(`${where} ${JSON.stringify(value)} is not a memory limit (256m, 1g)`);
  return Math.ceil(mb);
}

/** `total` shared by `count` as Hydro shares it: equal parts, the last `total % count` one point more. */
export function shares(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i >= count - (total % count) ? 1 : 0));
}

export function readTestdata(config: Yaml, ctx: Context): HydroTestdata {
  const notes: string[] = [];
  const limits: Limits = {
    time: config.time ? hydroTimeMs(config.time, `${ctx.at}: time`) : null,
    memory: config.memory ? hydroMemoryMb(config.memory, `${ctx.at}: memory`) : null,
  };
  const subtasks = normalize(rawSubtasks(config, ctx, notes), limits, ctx);
  const all = subtasks.flatMap((s) => s.cases);
  if (all.length === 0)
    throw refuse(
      `${ctx.at.replace(/config\.ya?ml$/, "")}: no test case (config.yaml lists none, none named like 1.in)`,
    );
  const timeMs = limitOf(all, "timeMs", { given: 1000, unit: "ms", what: "time" }, notes);
  const memoryMb = limitOf(all, "memoryMb", { given: 256, unit: "MB", what: "memory" }, notes);
  return { timeMs, memoryMb, ...groupsOf(subtasks, ctx.at, notes), notes };
}

/** config.yaml's subtasks (its `cases` as one `sum` subtask), or those the file names give. */
function rawSubtasks(config: Yaml, ctx: Context, notes: string[]): { s: Yaml; field: string }[] {
  const label = (list: Yaml[]) => list.map((s, i) => ({ s, field: `subtasks[${i}]` }));
  if (Array.isArray(config.cases) && config.cases.length > 0) {
    if (config.subtasks) notes.push(`${ctx.at}: cases is given, so subtasks is not read (Hydro's rule)`);
    if (config.score) notes.push(`${ctx.at}: score is not used (nor by Hydro's judge): the cases share 100`);
    return [{ s: { type: "sum", cases: config.cases }, field: "" }];
  }
  const listed = config.subtasks ?? [];
  if (!Array.isArray(listed)) throw refuse(`${ctx.at}: subtasks is not a list`);
  listed.forEach((s, i) => {
    if (!isMapping(s) || !Array.isArray(s.cases)) throw refuse(`${ctx.at}: subtasks[${i}] has no cases`);
  });
  if (listed.some((s) => s.cases.length > 0)) {
    const empty = listed.findIndex((s) => s.cases.length === 0);
    if (empty >= 0) throw refuse(`${ctx.at}: subtasks[${empty}] has no cases`);
    return label(listed);
  }
  if (listed.length > 0)
    notes.push(`${ctx.at}: its subtasks list no case: cases are found by file names, as Hydro does`);
  const found = subtasksFromNames([...ctx.index.keys()].sort(naturalCompare));
  return found.map((s) => ({ s: { ...s }, field: `subtask ${s.id}` }));
}

/** Ids, types, scores and limits as Hydro's `normalizeSubtasks` gives them, in its order (by id). */
function normalize(raw: { s: Yaml; field: string }[], limits: Limits, ctx: Context): Subtask[] {
  const idOf = (s: Yaml) => (typeof s.id === "number" ? s.id : Number.NaN);
  const ordered = [...raw].sort((a, b) => idOf(a.s) - idOf(b.s) || 0);
  const given = ordered.map(({ s, field }) => givenScore(s.score, `${ctx.at}: ${field}.score`));
  const left = shares(Math.max(100 - sum(given), 0), given.filter((g) => g === null).length);
  const subtasks = ordered.map(({ s, field }, i): Subtask => {
    const where = `${ctx.at}: ${field}`;
    const type = s.type ?? "min";
    if (type !== "min" && type !== "max" && type !== "sum")
      throw refuse(`${where}.type ${JSON.stringify(type)} is not min, max or sum`);
    if (s.if != null && !Array.isArray(s.if)) throw refuse(`${where}.if is not a list of subtask ids`);
    const own: Limits = {
      time: s.time ? hydroTimeMs(s.time, `${where}.time`) : limits.time,
      memory: s.memory ? hydroMemoryMb(s.memory, `${where}.memory`) : limits.memory,
    };
    const score = given[i] ?? left.shift()!;
    const cases = casesOf(s.cases as unknown[], { type, score, field, limits: own }, ctx);
    const id = typeof s.id === "number" ? s.id : i + 1;
    const label = field || "cases";
    return { id, type, score, dependsOn: ((s.if ?? []) as unknown[]).map(Number), cases, label };
  });
  const twice = subtasks.find((s, i) => subtasks.findIndex((o) => o.id === s.id) !== i);
  if (twice) throw refuse(`${ctx.at}: two subtasks have the id ${twice.id}`);
  return subtasks;
}

type Of = { type: Subtask["type"]; score: number; field: string; limits: Limits };

function casesOf(raw: unknown[], of: Of, ctx: Context): SubtaskCase[] {
  const listed = raw.map((c, i) => {
    const field = of.field ? `${of.field}.cases[${i}]` : `cases[${i}]`;
    if (!isMapping(c)) throw refuse(`${ctx.at}: ${field} is not a mapping`);
    return { c, field };
  });
  listed.sort((a, b) => (a.c.id as number) - (b.c.id as number) || 0);
  const given = listed.map(({ c, field }) => givenScore(c.score, `${ctx.at}: ${field}.score`));
  const left = shares(Math.max(of.score - sum(given), 0), given.filter((g) => g === null).length);
  return listed.map(({ c, field }, i) => {
    const where = `${ctx.at}: ${field}`;
    if (typeof c.input !== "string" || !c.input) throw refuse(`${where} has no input`);
    const input = findTestdata(ctx.index, c.input);
    if (!input) throw refuse(`${where}.input ${c.input} is not in testdata/`);
    const output = typeof c.output === "string" && c.output !== "/dev/null" ? c.output : "";
    if (!output && !ctx.interactive) throw refuse(`${where} has no output`);
    const answer = output ? findTestdata(ctx.index, output) : null;
    if (output && !answer) throw refuse(`${where}.output ${output} is not in testdata/`);
    return {
      input,
      answer,
      timeMs: c.time ? hydroTimeMs(c.time, `${where}.time`) : of.limits.time,
      memoryMb: c.memory ? hydroMemoryMb(c.memory, `${where}.memory`) : of.limits.memory,
      score: given[i] ?? (of.type === "sum" ? left.shift()! : of.score),
      ownScore: given[i] !== null,
    };
  });
}

/** A score config.yaml gives, or null (Hydro reads 0 as none given). */
function givenScore(value: unknown, where: string): number | null {
  if (value === undefined || value === null || value === 0) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
    throw refuse(`${where} ${JSON.stringify(value)} is not a whole number of points`);
  return value;
}

const sum = (scores: (number | null)[]) => scores.reduce<number>((total, s) => total + (s ?? 0), 0);

/**
 * The problem's limit: the largest any case has, so that no case is judged tighter than Hydro judged it
 * (a case here has no limit of its own), with a note when they differ or none was given.
 */
function limitOf(
  cases: SubtaskCase[],
  key: "timeMs" | "memoryMb",
  how: { given: number; unit: string; what: string },
  notes: string[],
): number {
  const values = cases.map((c) => c[key] ?? how.given);
  const largest = Math.max(...values);
  if (cases.some((c) => c[key] === null))
    notes.push(`no ${how.what} limit given: Hydro's default, ${how.given} ${how.unit}`);
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size > 1) {
    const spread = [...counts].sort((a, b) => a[0] - b[0]).map(([v, n]) => `${v} ${how.unit} for ${n}`);
    notes.push(
      `${how.what} limits differ by case (${spread.join(", ")}): every case gets the largest, ${largest} ${how.unit}`,
    );
  }
  return largest;
}
