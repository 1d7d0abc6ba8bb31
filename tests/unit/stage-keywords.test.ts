import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { codeOnly, familyOf, type SourceFamily } from "../../src/judge/stages/keywords";
import { type KeywordRule, scanKeywords, scanKeywordsBounded } from "../../src/judge/stages/keyword-scan";
import { regexProblem } from "../../src/core/config-model/config-stages";

const scan = (path: string, text: string, rules: KeywordRule[]) =>
  scanKeywords([{ path, text }], rules).map((hit) => `${hit.rule}@${hit.line}:${hit.text}`);

describe("source families", () => {
  test("by extension, case aside; a dot-file and an unknown extension are plain", () => {
    const cases: [string, SourceFamily][] = [
      ["main.cpp", "c"],
      ["src/util.H", "c"],
      ["Main.java", "c"],
      ["lib.rs", "c"],
      ["app.ts", "c-templates"],
      ["main.go", "c-templates"],
      ["solve.py", "python"],
      ["dir.py/README", "plain"],
      ["notes.txt", "plain"],
      [".c", "plain"],
      ["Makefile", "plain"],
    ];
    for (const [path, family] of cases) expect({ path, family: familyOf(path) }).toEqual({ path, family });
  });

  test("a C backtick is no string (a pair of them in #if 0 must not hide the code between); Go's is", () => {
    const c = "#if 0\n`\n#endif\ngoto out;\n#if 0\n`\n#endif\n";
    expect(scanKeywords([{ path: "main.c", text: c }], [{ pattern: "goto", deduction: 1 }])).toHaveLength(1);
    const go = "s := `goto`\ngoto out\n";
    expect(
      scanKeywords([{ path: "main.go", text: go }], [{ pattern: "goto", deduction: 1 }]).map((h) => h.line),
    ).toEqual([2]);
  });

  test("in a C submission a file of another name is read as C: it may be #included", () => {
    const files = [
      { path: "main.cpp", text: '#include "helper.py"\nint main() { J; }\n' },
      { path: "helper.py", text: "#define J goto out\n" },
    ];
    expect(scanKeywords(files, [{ pattern: "goto", deduction: 1 }]).map((h) => h.file)).toEqual(["helper.py"]);
    // A Python submission's own # comments stay comments.
    expect(scanKeywords([{ path: "a.py", text: "# goto\n" }], [{ pattern: "goto", deduction: 1 }])).toEqual([]);
  });
});

/** A source written with ⟦…⟧ around what must be blanked: the source, and what codeOnly must make of it. */
function marked(spec: string): [string, string] {
  const source = spec.replace(/[⟦⟧]/g, "");
  const code = spec.replace(/⟦([^⟧]*)⟧/g, (_, blanked: string) => blanked.replace(/[^\r\n]/g, " "));
  return [source, code];
}
const expectCode = (spec: string, kind: "c" | "python") => {
  const [source, code] = marked(spec);
  expect(codeOnly(source, kind)).toBe(code);
};

describe("code only, C family", () => {
  test("comments and literals become spaces; code, every newline and every column stay", () => {
    expectCode(
      'int a = 1; ⟦// goto x⟧\nchar *s = ⟦"goto \\" \'"⟧;\nchar c = ⟦\'"\'⟧; ⟦/* goto\n still */⟧ goto end;\n',
      "c",
    );
  });

  test('a directive keeps its string (to match #include "x.h") but not its comment', () => {
    expectCode('#include "bits/stdc++.h" ⟦// all of it⟧\n  #  define MSG "goto" ⟦/* c */⟧\nputs(⟦"goto"⟧);\n', "c");
    expectCode('⟦/* a */⟧ #include "x.h"\nint y; ⟦/* b */⟧ # not a directive ⟦"goto"⟧', "c");
    expectCode('#define TWO "a" \\\n  "b" ⟦// c⟧\nputs(⟦"d"⟧);', "c");
  });

  test("a block comment over a line end goes on with its directive, as in C: its string stays to be matched", () => {
    expectCode('#include ⟦/*\n*/⟧ "bits/stdc++.h"\nputs(⟦"d"⟧);', "c");
  });

  test("raw strings, prefixed literals and digit separators", () => {
    expectCode(
      'auto r = ⟦R"sql(goto ")" )sql"⟧; auto w = ⟦u8"goto"⟧, v = ⟦L\'g\'⟧; int n = 1\'000\'000; goto end;',
      "c",
    );
    expectCode('auto r = ⟦R"(unterminated\ngoto end;⟧', "c");
    expectCode('auto bad = ⟦R"no paren"⟧; goto end;', "c");
  });

  test("a backslash at the end of a // comment carries it onto the next line, as in C", () => {
    expectCode("⟦// see C:\\dir\\\ngoto end;⟧\nint x;", "c");
  });

  test("CRLF lines keep their CR and LF", () => {
    expectCode('a(); ⟦// x⟧\r\nb(⟦"y"⟧);\r\n⟦/* a\r\nb */⟧', "c");
  });

  test("an unterminated comment blanks to the end; an unterminated quote only to the end of its line", () => {
    expectCode("x; ⟦/* goto\ngoto⟧", "c");
    expectCode("#if 0\nit⟦'s⟧\n#endif\ngoto end;", "c");
    expectCode('s = ⟦"goto\\⟧', "c");
  });
});

describe("code only, Python and plain", () => {
  test("docstrings, comments and every kind of prefixed string go; code stays", () => {
    expectCode('⟦"""Solves it without\nimport numpy."""⟧\nimport numpy as np  ⟦# import numpy⟧\n', "python");
    expectCode("x = rb⟦'\\x00'⟧ + f⟦\"{y!r}\"⟧ + r⟦'\\''⟧ + ⟦'''a\nb'''⟧ + ⟦\"#\"⟧ + ⟦'it\\'s'⟧", "python");
    expectCode('s = ⟦\'unterminated⟧\nimport os\nt = ⟦"""never closed\nimport sys⟧', "python");
  });

  test("plain text is left as it is", () => {
    const text = '// goto "x" # y\n';
    expect(codeOnly(text, "plain")).toBe(text);
  });
});

// Source text rich in the characters that open and close comments and literals.
const SOURCE_PIECES = [
  "/",
  "*",
  "//",
  "/*",
  "*/",
  '"',
  "'",
  "`",
  "\\",
  "\n",
  "\r\n",
  "#",
  "R",
  "u8",
  "(",
  ")",
  "x",
  "goto",
  " ",
  "1",
  "'''",
  '"""',
  "é",
  "😀",
  "\uDC00",
];
const sourceText = fc.oneof(
  fc.array(fc.constantFrom(...SOURCE_PIECES), { maxLength: 80 }).map((pieces) => pieces.join("")),
  fc.string({ unit: "binary", maxLength: 200 }),
);
const family = fc.constantFrom("c" as const, "python" as const, "plain" as const);
// A `#`, then (over spliced lines) a `/*` whose comment holds a line end before its `*/`.
const commentCarriesDirective = (text: string) => /#(?:[^\n]|(?<=\\\r?)\n)*?\/\*(?:(?!\*\/)[\s\S])*\n/.test(text);

describe("code only, any text", () => {
  test("keeps the length, every CR and LF where it was, and each other character or a space in its place", () => {
    fc.assert(
      fc.property(sourceText, family, (text, kind) => {
        const code = codeOnly(text, kind);
        expect(code.length).toBe(text.length);
        for (let at = 0; at < text.length; at++) {
          const kept =
            text[at] === "\n" || text[at] === "\r" ? code[at] === text[at] : code[at] === text[at] || code[at] === " ";
          if (!kept) expect({ text, kind, at, code }).toBeNull();
        }
      }),
      { numRuns: 3000 },
    );
  });

  // Save for one case: blanking a block comment that carries a directive over a line end keeps the line end,
  // and a second pass then ends the directive there and blanks the string after it.
  test("blanking twice changes nothing more (but after a directive's comment over a line end)", () => {
    fc.assert(
      fc.property(sourceText, family, (text, kind) => {
        fc.pre(kind !== "c" || !commentCarriesDirective(text));
        const once = codeOnly(text, kind);
        expect(codeOnly(once, kind)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  test("is linear: a megabyte of openers takes well under a second", () => {
    for (const opener of ['R"', 'R"(', "/*", "//\\\n", '"\\', "'", "1'", "u8", '"""', "'''\\", "#"]) {
      const text = opener.repeat(Math.ceil(1_000_000 / opener.length));
      const started = performance.now();
      codeOnly(text, "c");
      codeOnly(text, "python");
      expect({ opener, slow: performance.now() - started > 1_000 }).toEqual({ opener, slow: false });
    }
  });
});

const CPP = `#include <bits/stdc++.h>
#include   <algorithm>
#include "util.h"
// goto is banned here, so: no goto
int main() {
  const char *why = "goto considered harmful";
  int gotoLabel = 0; // not the keyword
  for (;;) { if (gotoLabel++ > 3) goto done; }
done:
  std::sort(v.begin(), v.end()); /* std::sort( in a comment */
  return 0;
}
`;

describe("scanning for keywords", () => {
  test("goto in a comment, a string or a longer name is no hit; the real one is, with its line", () => {
    expect(scan("main.cpp", CPP, [{ pattern: "goto" }])).toEqual(["0@8:goto"]);
  });

  test("whitespace in a pattern matches any run of whitespace; a directive's string can be matched", () => {
    const rules = [{ pattern: "#include <algorithm>" }, { pattern: '#include "util.h"' }, { pattern: "std::sort(" }];
    expect(scan("main.cpp", CPP, rules)).toEqual([
      "0@2:#include   <algorithm>",
      '1@3:#include "util.h"',
      "2@10:std::sort(",
    ]);
  });

  test("import numpy in Python is found, in a docstring or comment it is not", () => {
    const python =
      '"""Do not\nimport numpy here."""\nimport os\nimport  numpy as np  # import numpy\nx = "import numpy"\n';
    expect(scan("solve.py", python, [{ pattern: "import numpy" }])).toEqual(["0@4:import  numpy"]);
  });

  test("a plain pattern's regex metacharacters are literal", () => {
    expect(scan("notes.txt", "aab( a+b( a+b(c", [{ pattern: "a+b(" }])).toEqual(["0@1:a+b(", "0@1:a+b("]);
    expect(scan("notes.txt", "x.*y x..y", [{ pattern: ".*" }, { pattern: "[^" }])).toEqual(["0@1:.*"]);
  });

  test("a regex is used as given, with Unicode; hits come in file order, then position, then rule", () => {
    const files = [
      { path: "b.c", text: "int straße = 1;\r\nint Öl = 2;\r\n" },
      { path: "a.c", text: "malloc(1); free(p);\n" },
    ];
    const rules = [{ regex: "\\b(malloc|free)\\b" }, { regex: "\\p{Lu}\\p{Ll}" }, { pattern: "int" }];
    const hits = scanKeywords(files, rules).map((h) => `${h.file}:${h.line} ${h.rule} ${h.text}`);
    expect(hits).toEqual(["b.c:1 2 int", "b.c:2 2 int", "b.c:2 1 Öl", "a.c:1 0 malloc", "a.c:1 0 free"]);
  });

  test("an empty match is no hit, an empty pattern matches nothing, and a hit's text is cut at 200", () => {
    expect(scan("a.txt", "abc", [{ regex: "x*" }, { pattern: "   " }, {}])).toEqual([]);
    const [long] = scanKeywords([{ path: "a.txt", text: "y".repeat(1000) }], [{ regex: "y+" }]);
    expect(long.text).toBe(`${"y".repeat(199)}…`);
  });

  test("at most 10,000 hits in all, the first ones", () => {
    const files = [0, 1, 2].map((n) => ({ path: `f${n}.c`, text: "goto a;\n".repeat(6_000) }));
    const hits = scanKeywords(files, [{ pattern: "goto" }, { regex: "a;" }]);
    expect(hits).toHaveLength(10_000);
    expect(hits.at(-1)).toEqual({ rule: 1, file: "f0.c", line: 5_000, text: "a;" });
  });

  test("a regex that does not compile fails the scan; regexProblem names it", () => {
    expect(() => scanKeywords([{ path: "a.c", text: "x" }], [{ pattern: "x" }, { regex: "(a" }])).toThrow(/rule 1/);
    expect(regexProblem("(a")).toMatch(/\S/);
    expect(regexProblem("\\p{Foo}")).not.toBeNull(); // an escape the u flag refuses
    expect(regexProblem("\\bgoto\\b")).toBeNull();
  });

  test("any pattern is found literally in a text made of it", () => {
    const pieces = fc.constantFrom(
      "a",
      "Z",
      "_",
      "0",
      "+",
      "(",
      ")",
      "[",
      "\\",
      "$",
      "^",
      "|",
      "?",
      "*",
      "{",
      "}",
      ".",
      "/",
      "-",
      "#",
      "<",
      " ",
      "\t",
      "é",
      "中",
      "😀",
    );
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 30 }), (parts) => {
        const pattern = parts.join("");
        fc.pre(pattern.trim() !== "");
        const hits = scanKeywords([{ path: "a.txt", text: ` ${pattern} ` }], [{ pattern }]);
        expect(hits[0]?.text).toBe(pattern.trim());
      }),
      { numRuns: 2000 },
    );
  });
});

describe("scanning in a worker with a time limit", () => {
  test("gives what scanKeywords gives", async () => {
    const rules = [{ pattern: "goto" }, { regex: "#include\\s*<(\\w+)>" }];
    const files = [{ path: "main.cpp", text: CPP }];
    expect(await scanKeywordsBounded(files, rules, 5_000)).toEqual(scanKeywords(files, rules));
  });

  test("a regex that backtracks for ever runs out of time within the limit, and the next scan still works", async () => {
    const started = performance.now();
    const scanning = scanKeywordsBounded([{ path: "a.txt", text: `${"a".repeat(29)}!` }], [{ regex: "(a+)+$" }], 200);
    await expect(scanning).rejects.toThrow(/ran out of time/);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await scanKeywordsBounded([{ path: "a.c", text: "goto x;" }], [{ pattern: "goto" }], 5_000)).toHaveLength(1);
  });

  test("a rule that fails in the worker rejects with its reason", async () => {
    await expect(scanKeywordsBounded([{ path: "a.c", text: "x" }], [{ regex: "(" }], 5_000)).rejects.toThrow(/rule 0/);
  });

  test("rules that cannot be copied to the worker reject", async () => {
    const rules = [{ pattern: "x", message: (() => "not data") as unknown as string }];
    await expect(scanKeywordsBounded([{ path: "a.c", text: "x" }], rules, 5_000)).rejects.toThrow();
  });

  test("twenty scans at once each get their own answer", async () => {
    const scans = Array.from({ length: 20 }, (_, n) =>
      scanKeywordsBounded([{ path: "a.c", text: "goto x;\n".repeat(n) }], [{ pattern: "goto" }], 10_000),
    );
    expect((await Promise.all(scans)).map((hits) => hits.length)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});
