import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { judgeOutput, type CompareRule } from "../../src/judge/outcome/compare";

const bytes = (text: string | Uint8Array) => (typeof text === "string" ? new TextEncoder().encode(text) : text);
const judged = (actual: string | Uint8Array, expected: string | Uint8Array, rule: CompareRule) =>
  judgeOutput(bytes(actual), bytes(expected), rule);
const FLOAT: CompareRule = { compare: "float", epsilon: 1e-6 };
const ICASE: CompareRule = { compare: "tokens-icase", epsilon: null };
const UNORDERED: CompareRule = { compare: "lines-unordered", epsilon: null };

describe("float comparison", () => {
  test("a third at 1e-6: 0.3333333 passes, 0.334 does not", async () => {
    expect(await judged("0.3333333\n", "0.333333333333\n", FLOAT)).toBe(true);
    expect(await judged("0.334\n", "0.333333333333\n", FLOAT)).toBe(false);
  });

  test("absolute or relative error, whichever is looser; an error of exactly epsilon passes", async () => {
    expect(await judged("1000000500", "1000000000", FLOAT)).toBe(true); // relative 5e-7
    expect(await judged("1000002000", "1000000000", FLOAT)).toBe(false); // relative 2e-6
    expect(await judged("0.0000009", "0", FLOAT)).toBe(true); // absolute 9e-7
    expect(await judged("0.000002", "0", FLOAT)).toBe(false);
    expect(await judged("0.100001", "0.1", FLOAT)).toBe(true);
    expect(await judged("-2.5e-3 1. .5 +7", "-0.0025 1 0.5 7.0", FLOAT)).toBe(true);
  });

  test("words match exactly, nan and inf are never numbers, and the line layout does not matter", async () => {
    expect(await judged("Case 1: 0.5", "Case 1: 0.5000001", FLOAT)).toBe(true);
    expect(await judged("case 1: 0.5", "Case 1: 0.5", FLOAT)).toBe(false);
    for (const bad of ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "0x1p-1", "0.5.5"]) {
      expect({ bad, ok: await judged(bad, "0.5", FLOAT) }).toEqual({ bad, ok: false });
    }
    expect(await judged("1\n2\r\n  3", "1 2 3\n", FLOAT)).toBe(true);
    expect(await judged("1 2", "1 2 3", FLOAT)).toBe(false);
    expect(await judged("1 2 3 4", "1 2 3", FLOAT)).toBe(false);
    expect(await judged("", "", FLOAT)).toBe(true);
  });

  test("a megabyte of digits that is not a number is refused without backtracking (a judge stalled for days)", async () => {
    // Against a number: one token of digits ending in a letter, a long run of digits, and one a digit short.
    const digits = "7".repeat(1 << 20);
    expect(await judged(`${digits}x`, "1", FLOAT)).toBe(false);
    expect(await judged(digits, "1", FLOAT)).toBe(false);
    expect(await judged(`${digits.slice(0, 4000)}.5e`, "1", FLOAT)).toBe(false);
    // A long token still matches itself byte for byte, and a long number is read.
    expect(await judged(`${digits}x`, `${digits}x`, FLOAT)).toBe(true);
    expect(await judged(`0.${"0".repeat(300)}1`, "0", FLOAT)).toBe(true);
  }, 30_000);

  test("any double, printed to 9 significant digits, passes at 1e-6; moved by 3 × epsilon it fails", async () => {
    const value = fc.double({ min: -1e12, max: 1e12, noNaN: true });
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 20 }), fc.nat(), async (values, at) => {
        const expected = values.map((v) => v.toString()).join(" ");
        if (!(await judged(values.map((v) => v.toPrecision(9)).join("\n"), expected, FLOAT))) return false;
        const i = at % values.length;
        const moved = values.map((v, k) => (k === i ? v + 3e-6 * Math.max(1, Math.abs(v)) : v));
        return !(await judged(moved.map((v) => v.toString()).join(" "), expected, FLOAT));
      }),
    );
  });
});

describe("case-insensitive tokens", () => {
  test("ASCII and Unicode letters in any case; anything else exactly", async () => {
    expect(await judged("yes\nNO  Maybe", "YES no MAYBE\n", ICASE)).toBe(true);
    expect(await judged("STRASSE", "straße", ICASE)).toBe(true);
    expect(await judged("ΟΔΟΣ Ärger", "οδος ärger", ICASE)).toBe(true);
    expect(await judged("yes", "yes!", ICASE)).toBe(false);
    expect(await judged("ye s", "yes", ICASE)).toBe(false);
    // Not UTF-8: decoding would make 0xFF and 0xFE alike; they only match byte for byte.
    expect(await judged(new Uint8Array([0xff]), new Uint8Array([0xfe]), ICASE)).toBe(false);
    expect(await judged(new Uint8Array([0xff]), new Uint8Array([0xff]), ICASE)).toBe(true);
  });

  test("any re-casing of the same ASCII tokens matches; a changed letter does not", async () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean()),
        async (words, upper) => {
          const recased = words.map((w, i) => (upper[i % Math.max(1, upper.length)] ? w.toUpperCase() : w));
          if (!(await judged(recased.join(" "), words.join("\n"), ICASE))) return false;
          const changed = [...words];
          changed[0] = `${changed[0]}x`;
          return !(await judged(changed.join(" "), words.join(" "), ICASE));
        },
      ),
    );
  });
});

describe("unordered lines", () => {
  test("the same lines in any order; trailing white space and a final line end aside", async () => {
    expect(await judged("b\na\n", "a\nb", UNORDERED)).toBe(true);
    expect(await judged("b  \r\na\t", "a\nb\n", UNORDERED)).toBe(true);
    expect(await judged(" a\nb", "a\nb", UNORDERED)).toBe(false);
    expect(await judged("a\na\nb", "a\nb\nb", UNORDERED)).toBe(false);
    expect(await judged("a\nb\n\n", "a\nb\n", UNORDERED)).toBe(false);
    expect(await judged("a b\n", "b a\n", UNORDERED)).toBe(false);
  });

  test("any shuffle of the lines matches; a line more or less does not", async () => {
    const line = fc.stringMatching(/^[ -~]{0,6}[!-~]$/);
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(line, { minLength: 1, maxLength: 20 })
          .chain((ls) => fc.tuple(fc.constant(ls), fc.shuffledSubarray(ls, { minLength: ls.length }))),
        async ([ls, shuffled]) => {
          if (!(await judged(`${shuffled.join("\n")}\n`, ls.join("\r\n"), UNORDERED))) return false;
          return (
            !(await judged(shuffled.slice(1).join("\n"), ls.join("\n"), UNORDERED)) &&
            !(await judged([...shuffled, "extra"].join("\n"), ls.join("\n"), UNORDERED))
          );
        },
      ),
    );
  });

  test("300,000 distinct lines shuffled match (hash collisions among them are compared byte for byte); one changed does not", async () => {
    const lines = Array.from({ length: 300_000 }, (_, i) => `${(i * 7_919) % 300_000} ${i % 7}`);
    const shuffled = [...lines].sort((x, y) => x.length - y.length || (x < y ? -1 : 1));
    expect(await judged(shuffled.join("\n"), lines.join("\n"), UNORDERED)).toBe(true);
    shuffled[12_345] = `${shuffled[12_345]}0`;
    expect(await judged(shuffled.join("\n"), lines.join("\n"), UNORDERED)).toBe(false);
  });
});

describe("floods", () => {
  test("16 MB outputs and 3 MB of blank lines are compared in linear time, yielding to the event loop", async () => {
    const numbers = new TextEncoder().encode("0.5 ".repeat(4 << 20));
    const words = new TextEncoder().encode("Ab ".repeat((16 << 20) >> 1).slice(0, 16 << 20));
    const lines = new TextEncoder().encode("line\n".repeat((16 << 20) / 5));
    const blank = new Uint8Array(3_000_000).fill(0x0a);
    blank[0] = 0x33;
    const endless = new Uint8Array(16 << 20).fill(0x78);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const started = performance.now();
    const results = await Promise.all([
      judgeOutput(numbers, numbers, FLOAT),
      judgeOutput(
        words,
        words.map((b) => (b === 0x41 ? 0x61 : b)),
        ICASE,
      ),
      judgeOutput(lines, lines, UNORDERED),
      judgeOutput(blank, bytes("3\n"), FLOAT),
      judgeOutput(blank, bytes("3\n"), ICASE),
      judgeOutput(blank, bytes("3\n"), UNORDERED),
      judgeOutput(endless, endless, FLOAT),
      judgeOutput(endless, endless, UNORDERED),
    ]);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(results).toEqual([true, true, true, true, true, false, true, true]);
    // Timers ran while the comparisons were under way: the judge's lease renewals would have too.
    expect(ticks).toBeGreaterThan(0);
    console.log(
      `tolerant comparisons of 5 × 16 MB and 3 × 3 MB of blank lines: ${elapsed.toFixed(0)} ms, ${ticks} timer ticks`,
    );
  }, 60_000);
});
