import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { outputMatches } from "../../src/judge/outcome/compare";

const bytes = (text: string) => new TextEncoder().encode(text);
const same = (a: string | Uint8Array, b: string | Uint8Array, ws: boolean) =>
  outputMatches(typeof a === "string" ? bytes(a) : a, typeof b === "string" ? bytes(b) : b, ws);

// Lines of tokens: what a judge's expected output looks like.
const token = fc.stringMatching(/^[!-~]{1,6}$/);
const lines = fc.array(fc.array(token, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 });
const render = (ls: string[][], sep = " ", eol = "\n") => ls.map((l) => l.join(sep)).join(eol) + eol;

describe("exact comparison", () => {
  test("byte for byte, but for CRLF and one final line end", async () => {
    expect(await same("3\n", "3", false)).toBe(true);
    expect(await same("3\r\n4\r\n", "3\n4\n", false)).toBe(true);
    expect(await same("3\n\n", "3\n", false)).toBe(false);
    expect(await same("3 \n", "3\n", false)).toBe(false);
    expect(await same("3\r", "3", false)).toBe(false);
    expect(await same(new Uint8Array([0xff, 0x0a]), new Uint8Array([0xfe, 0x0a]), false)).toBe(false);
    expect(await same(new Uint8Array([0xef, 0xbb, 0xbf, 0x33]), "3", false)).toBe(false);
  });

  test("CRLF and LF are the same, for any text", async () => {
    await fc.assert(
      fc.asyncProperty(lines, async (ls) => (await same(render(ls, " ", "\r\n"), render(ls), false)) === true),
    );
  });

  test("changing any one byte is a mismatch", async () => {
    await fc.assert(
      fc.asyncProperty(lines, fc.nat(), async (ls, at) => {
        const text = bytes(render(ls));
        const changed = text.slice();
        const i = at % (text.length - 1); // not the final line end
        changed[i] = changed[i] === 0x41 ? 0x42 : 0x41;
        return !(await same(changed, text, false));
      }),
    );
  });
});

describe("white-space comparison", () => {
  test("separators inside and at line ends, and blank lines around the output, do not matter", async () => {
    expect(await same("\n\n  1   2\t\r\n3  \n\n\n", "1 2\n3", true)).toBe(true);
    expect(await same("1\n\n2\n", "1\n2\n", true)).toBe(false);
    expect(await same("1 2\n", "1\n2\n", true)).toBe(false);
    expect(await same("12\n", "1 2\n", true)).toBe(false);
  });

  test("any spacing of the same tokens on the same lines matches", async () => {
    await fc.assert(
      fc.asyncProperty(
        lines,
        fc.constantFrom(" ", "  ", "\t", " \t "),
        fc.constantFrom("\n", "\r\n", " \n", "\n\n\n"),
        async (ls, sep, end) => (await same(render(ls, sep, "\n") + end, render(ls), true)) === true,
      ),
    );
  });

  test("a different token never matches", async () => {
    await fc.assert(
      fc.asyncProperty(lines, token, async (ls, extra) => !(await same(render([...ls, [extra]]), render(ls), true))),
    );
  });
});

describe("floods", () => {
  test("3 MB of blank lines and a 16 MB line are compared in one pass, yielding to the event loop", async () => {
    const flood = new Uint8Array(3_000_000).fill(0x0a);
    flood[0] = 0x33;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const endless = new Uint8Array(16 << 20).fill(0x78);
    const results = await Promise.all([
      same(flood, "3\n", true),
      same(flood, "3\n", false),
      same(endless, endless, true),
    ]);
    clearInterval(timer);
    expect(results).toEqual([true, false, true]);
    // Timers ran while the comparisons were under way: the judge's lease renewals would have too.
    expect(ticks).toBeGreaterThan(0);
  });
});
