/**
 * bench:similarity: a course problem's report, 300 submissions of about 200 lines of C, through the
 * analysis the report job runs (similarity-engine.ts), with what it costs next to a floor measured in the
 * same run: parsing every submission once (tree-sitter), which any analysis of the code must do.
 *
 * The submissions are generated: 6 base solutions, and each student's a variant of one (identifiers
 * renamed, functions reordered, half of the statements their own), so many pairs look alike as a
 * class's do. 12 of them are disguised copies of another student's (renamed, reordered, comments added):
 * the report must rank every planted copy above every other pair.
 *
 *   bun run bench:similarity [SUBMISSIONS=300]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { analyse, type Source } from "../src/modules/similarity/similarity-engine";
import { parserFor } from "../src/modules/similarity/similarity-fingerprints";

const COUNT = Number(process.env.SUBMISSIONS ?? 300);
const BASES = 6;
const COPIES = 12;

/** A seeded generator (mulberry32), so every run compares the same code. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]) => items[Math.floor(rng() * items.length)];

/** A statement over the function's variables; loops and branches nest one level. */
function statement(rng: Rng, vars: string[], depth = 0): string[] {
  const v = () => pick(rng, vars);
  const n = () => String(1 + Math.floor(rng() * 97));
  const expr = () =>
    pick(rng, [`${v()} + ${n()}`, `${v()} * ${v()}`, `${v()} % ${n()}`, `(${v()} ^ ${v()}) & ${n()}`, `a[${v()} % N]`]);
  const kind = depth > 0 ? Math.floor(rng() * 3) : Math.floor(rng() * 6);
  if (kind === 3) return [`for (int i = 0; i < ${v()} % N; i++) {`, ...body(rng, vars, 2, depth + 1), "}"];
  if (kind === 4)
    return [
      `if (${v()} > ${expr()}) {`,
      ...body(rng, vars, 2, depth + 1),
      "} else {",
      ...body(rng, vars, 1, depth + 1),
      "}",
    ];
  if (kind === 5) return [`while (${v()} > ${n()}) {`, `${v()} /= 2;`, ...body(rng, vars, 1, depth + 1), "}"];
  if (kind === 2) return [`a[${v()} % N] = ${expr()};`];
  return [`${v()} = ${expr()};`];
}
const body = (rng: Rng, vars: string[], count: number, depth = 0) =>
  Array.from({ length: count }, () => statement(rng, vars, depth)).flat();

interface Fn {
  name: string;
  lines: string[];
}

function baseSolution(seed: number): Fn[] {
  const rng = random(seed);
  return Array.from({ length: 8 }, (_, f) => {
    const vars = ["x", "y", "s", "t"];
    const lines = [`long long f${f}(long long x, long long y) {`, "long long s = x, t = y;"];
    lines.push(...body(rng, vars, 5), "return s + t;", "}");
    return { name: `f${f}`, lines };
  });
}

/** A student's take on a base: half of the statements rewritten with their own seed. */
function variant(base: Fn[], seed: number): Fn[] {
  const rng = random(seed);
  return base.map((fn) => ({
    name: fn.name,
    lines: fn.lines.flatMap((line) => {
      if (!line.endsWith(";") || line.startsWith("return") || line.startsWith("long long s")) return [line];
      const roll = rng();
      // Half rewritten, some dropped, some with a statement of their own added.
      if (roll < 0.4) return statement(rng, ["x", "y", "s", "t"]);
      if (roll < 0.5) return [];
      if (roll < 0.6) return [line, ...statement(rng, ["x", "y", "s", "t"])];
      return [line];
    }),
  }));
}

/** Renamed identifiers, shuffled functions, comments: how a copy is disguised (and how styles differ). */
function disguise(fns: Fn[], seed: number, comments: boolean): string {
  const rng = random(seed);
  const names = new Map<string, string>();
  const rename = (name: string) => {
    if (!names.has(name))
      names.set(name, `${pick(rng, ["calc", "step", "part", "mix", "go"])}_${names.size}_${seed % 997}`);
    return names.get(name)!;
  };
  const order = [...fns].sort(() => rng() - 0.5);
  const out = ["#include <stdio.h>", "#define N 1024", "static long long a[N];", ""];
  for (const fn of order) out.push(`long long ${rename(fn.name)}(long long x, long long y);`);
  for (const fn of order) {
    if (comments) out.push(`/* ${pick(rng, ["helper", "the main step", "see lecture 4", "TODO tidy"])} */`);
    const text = fn.lines
      .join("\n")
      .replace(/\bf\d+\b/g, (m) => rename(m))
      .replace(/\b[xystn]\b/g, (m) => `${m}${seed % 7}`);
    out.push(text, "");
  }
  const calls = order.map((fn) => `r += ${rename(fn.name)}(r, ${Math.floor(rng() * 100)});`);
  out.push(
    "int main(void) {",
    "long long r = 0;",
    'if (scanf("%lld", &r) != 1) return 1;',
    ...calls,
    'printf("%lld\\n", r);',
    "return 0;",
    "}",
  );
  return out.join("\n");
}

function submissions(): { sources: Source[]; planted: Set<string> } {
  const bases = Array.from({ length: BASES }, (_, b) => baseSolution(1000 + b));
  const kept: Fn[][] = [];
  const sources: Source[] = [];
  for (let i = 0; i < COUNT - COPIES; i++) {
    const fns = variant(bases[i % BASES], 5000 + i);
    kept.push(fns);
    sources.push({ key: `s${i}`, text: disguise(fns, 7000 + i, i % 2 === 0), grammar: "c" });
  }
  const planted = new Set<string>();
  for (let c = 0; c < COPIES; c++) {
    const of = (c * 37) % kept.length;
    const key = `copy${c}-of-s${of}`;
    sources.push({ key, text: disguise(kept[of], 9000 + c, true), grammar: "c" });
    planted.add(`${key}|s${of}`);
  }
  return { sources, planted };
}

const { sources, planted } = submissions();
const lines = sources.reduce((sum, s) => sum + s.text.split("\n").length, 0) / sources.length;
console.log(
  `${sources.length} submissions of C, ${lines.toFixed(0)} lines each on average; ${planted.size} planted copies`,
);

/** The process's resident high-water mark (VmHWM), in MiB: every allocation counts, not a sample's. */
const highWater = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

// Warm-up: the grammar's WebAssembly loads once per process.
const parser = await parserFor("c");
let floor = performance.now();
for (const s of sources) parser.parse(s.text).delete();
floor = performance.now() - floor;

const rssBefore = process.memoryUsage().rss / 2 ** 20;
const wholeBefore = highWater();
// Writing 5 resets the high-water mark to the current RSS (Linux 4.0+), so the analysis's own peak shows.
writeFileSync("/proc/self/clear_refs", "5");
const started = performance.now();
const pairs = await analyse(sources, {
  minSimilarity: 0,
  maxPairs: Number(process.env.KEEP ?? 1000),
  pause: () => new Promise(setImmediate),
});
const elapsed = performance.now() - started;
const peak = highWater();

const rank = pairs.map((p) => [p.left, p.right].sort().join("|"));
const found = [...planted].filter((key) => {
  const at = rank.indexOf(key.split("|").sort().join("|"));
  return at >= 0 && at < planted.size;
});
const copyScores = pairs.filter((_, i) => planted.has(rank[i]) || planted.has(rank[i].split("|").reverse().join("|")));
console.log(`floor (parse every submission once with tree-sitter): ${(floor / 1000).toFixed(2)} s`);
console.log(
  `report (parse, index, ${((sources.length * (sources.length - 1)) / 2).toLocaleString("en")} pairs, keep 1,000): ${(elapsed / 1000).toFixed(2)} s = ${(elapsed / floor).toFixed(1)}× the floor`,
);
console.log(
  `memory: ${rssBefore.toFixed(0)} MiB before the report, its peak ${peak.toFixed(0)} MiB (VmHWM); ` +
    `the process's peak before it ${wholeBefore.toFixed(0)} MiB`,
);
console.log(`planted copies in the top ${planted.size}: ${found.length} of ${planted.size}`);
console.log(
  `similarity: copies ${Math.min(...copyScores.map((p) => p.similarity)).toFixed(3)}–${Math.max(...copyScores.map((p) => p.similarity)).toFixed(3)}, the best other pair ${pairs.find((_, i) => !copyScores.includes(pairs[i]))?.similarity.toFixed(3)}`,
);
if (found.length !== planted.size) process.exitCode = 1;
