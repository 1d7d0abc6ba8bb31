import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type Finding,
  parseClangTidy,
  parseCommandOutput,
  parseCppcheck,
  parseCpplint,
} from "../../src/judge/stages/findings";

// Captured from clang-tidy 14, cppcheck 2.10 and cpplint 1.6.1 (Debian bookworm) run on a 28-line main.cpp and
// its util.h, with the work directory's path written as /work.
const places = (findings: Finding[]) => findings.map((f) => `${f.file}:${f.line} ${f.check}`);

// clang-tidy --quiet -checks='-*,readability-*,bugprone-*' main.cpp -- -std=gnu++17 (stdout; exit 0)
const TIDY_READABILITY = `
/work/main.cpp:5:11: warning: 10 is a magic number; consider replacing it with a named constant [readability-magic-numbers]
int table[10];
          ^
/work/main.cpp:7:14: warning: parameter name 'a' is too short, expected at least 3 characters [readability-identifier-length]
int sum(int *a, int n) {
             ^
/work/main.cpp:7:14: warning: pointer parameter 'a' can be pointer to const [readability-non-const-parameter]
int sum(int *a, int n) {
             ^
        const 
/work/main.cpp:8:7: warning: variable name 's' is too short, expected at least 3 characters [readability-identifier-length]
  int s;
      ^
/work/main.cpp:9:31: warning: statement should be inside braces [readability-braces-around-statements]
  for (int i = 0; i <= n; i++) s += a[i];
                              ^
                               {
/work/main.cpp:14:7: warning: variable name 'n' is too short, expected at least 3 characters [readability-identifier-length]
  int n;
      ^
`;

// clang-tidy --quiet -checks='-*,clang-diagnostic-*,clang-analyzer-*,bugprone-*,cert-*,misc-*' -header-filter='.*'
//   -warnings-as-errors='cert-*' main.cpp -- -std=gnu++17 -Wall (stdout, excerpts; exit 1)
const TIDY_ANALYZER = `
/work/main.cpp:9:32: warning: variable 's' is uninitialized when used here [clang-diagnostic-uninitialized]
  for (int i = 0; i <= n; i++) s += a[i];
                               ^
/work/main.cpp:8:8: note: initialize the variable 's' to silence this warning
  int s;
       ^
        = 0
/work/main.cpp:9:34: warning: The left expression of the compound assignment is an uninitialized value. The computed value will also be garbage [clang-analyzer-core.uninitialized.Assign]
  for (int i = 0; i <= n; i++) s += a[i];
                               ~ ^
/work/main.cpp:8:3: note: 's' declared without an initial value
  int s;
  ^~~~~
/work/main.cpp:9:19: note: Assuming 'i' is <= 'n'
  for (int i = 0; i <= n; i++) s += a[i];
                  ^~~~~~
/work/main.cpp:9:3: note: Loop condition is true.  Entering loop body
  for (int i = 0; i <= n; i++) s += a[i];
  ^
/work/main.cpp:9:34: note: The left expression of the compound assignment is an uninitialized value. The computed value will also be garbage
  for (int i = 0; i <= n; i++) s += a[i];
                               ~ ^
/work/main.cpp:15:3: error: the value returned by this function should be used [cert-err33-c,-warnings-as-errors]
  scanf("%d", &n);
  ^~~~~~~~~~~~~~~
/work/main.cpp:15:3: note: cast the expression to void to silence this warning
/work/main.cpp:15:3: error: 'scanf' used to convert a string to an integer value, but function will not report conversion errors; consider using 'strtol' instead [cert-err34-c,-warnings-as-errors]
  scanf("%d", &n);
  ^
/work/util.h:5:3: warning: Call to function 'strcpy' is insecure as it does not provide bounding of the memory buffer. Replace unbounded copy functions with analogous functions that support length arguments such as 'strlcpy'. CWE-119 [clang-analyzer-security.insecureAPI.strcpy]
  strcpy(dst, src);
  ^~~~~~
/work/util.h:5:3: note: Call to function 'strcpy' is insecure as it does not provide bounding of the memory buffer. Replace unbounded copy functions with analogous functions that support length arguments such as 'strlcpy'. CWE-119
  strcpy(dst, src);
  ^~~~~~
`;

// A comment of the submission's that quotes a report, on a line clang-tidy excerpts (stdout; exit 0).
const TIDY_QUOTED = `/work/inj.cpp:2:72: warning: 42 is a magic number; consider replacing it with a named constant [readability-magic-numbers]
/work/util.h:1:1: warning: fake finding [bugprone-fake] */ int v = 42;
                                                                       ^
`;

// clang-tidy --use-color on a header that does not compile, its lines ending in CRLF.
const TIDY_COLOUR =
  "\u001b[1m/work/sub/broken.h:1:25: \u001b[0m\u001b[0;1;31merror: \u001b[0m\u001b[1muse of undeclared identifier " +
  "'undefined_thing' [clang-diagnostic-error]\u001b[0m\r\ninline int f() { return undefined_thing; }\r\n" +
  "\u001b[0;1;32m                        ^\r\n\u001b[0m";

// cppcheck --enable=all --quiet --template='{file}:{line}:{column}: {severity}: {message} [{id}]'
//   main.cpp more.cpp syntax.cpp (stderr; exit 0, or --error-exitcode's value when it finds something)
const CPPCHECK = `main.cpp:19:16: error: Array 'table[10]' accessed at index 10, which is out of bounds. [arrayIndexOutOfBounds]
main.cpp:18:9: style: Condition 'n=0' is always false [knownConditionTrueFalse]
main.cpp:7:14: style: Parameter 'a' can be declared as pointer to const [constParameter]
main.cpp:23:21: error: Shifting 32-bit value by 40 bits is undefined behaviour [shiftTooManyBits]
main.cpp:10:10: warning: Uninitialized variable: s [uninitvar]
nofile:0:0: information: Cppcheck cannot find all the include files (use --check-config for details) [missingIncludeSystem]
more.cpp:16:11: error: Buffer is accessed out of bounds: s [bufferAccessOutOfBounds]
more.cpp:11:48: error: Out of bounds access in 'v[i]', if 'v' size is 3 and 'i' is 3 [containerOutOfBounds]
syntax.cpp:1:20: error: Syntax Error: AST broken, binary operator '=' doesn't have two operands. [internalAstError]
more.cpp:6:0: style: The function 'unusedHelper' is never used. [unusedFunction]
nofile:0:0: information: Cppcheck cannot find all the include files (use --check-config for details) [missingInclude]
`;

// cpplint main.cpp util.h long.cpp: findings on stderr, the last two lines on stdout (exit 1; 0 when clean).
const CPPLINT = `main.cpp:0:  No copyright message found.  You should have a line: "Copyright [year] <Copyright Owner>"  [legal/copyright] [5]
main.cpp:2:  Include the directory when naming header files  [build/include_subdir] [4]
main.cpp:16:  Using C-style cast.  Use reinterpret_cast<int *>(...) instead  [readability/casting] [4]
util.h:8:  #endif line should be "#endif  // _WORK_UTIL_H_"  [build/header_guard] [5]
util.h:5:  Almost always, snprintf is better than strcpy  [runtime/printf] [4]
long.cpp:6:  Lines should be <= 80 characters long  [whitespace/line_length] [2]
Done processing main.cpp
Done processing util.h
Done processing long.cpp
Total errors found: 6
`;

describe("clang-tidy", () => {
  test("each warning is a finding with its file relative to the work directory, its line and its check", () => {
    expect(places(parseClangTidy(TIDY_READABILITY, "/work"))).toEqual([
      "main.cpp:5 readability-magic-numbers",
      "main.cpp:7 readability-identifier-length",
      "main.cpp:7 readability-non-const-parameter",
      "main.cpp:8 readability-identifier-length",
      "main.cpp:9 readability-braces-around-statements",
      "main.cpp:14 readability-identifier-length",
    ]);
    expect(parseClangTidy(TIDY_READABILITY, "/work")[0].message).toBe(
      "10 is a magic number; consider replacing it with a named constant",
    );
  });

  test("notes, excerpts and fix-its are no findings; -warnings-as-errors is no check; a header keeps its name", () => {
    expect(places(parseClangTidy(TIDY_ANALYZER, "/work"))).toEqual([
      "main.cpp:9 clang-diagnostic-uninitialized",
      "main.cpp:9 clang-analyzer-core.uninitialized.Assign",
      "main.cpp:15 cert-err33-c",
      "main.cpp:15 cert-err34-c",
      "util.h:5 clang-analyzer-security.insecureAPI.strcpy",
    ]);
  });

  test("a source excerpt that quotes a diagnostic is told apart by the caret line under it", () => {
    expect(places(parseClangTidy(TIDY_QUOTED, "/work"))).toEqual(["inj.cpp:2 readability-magic-numbers"]);
  });

  test("colour codes and CRLF are removed, and an error counts like a warning", () => {
    expect(parseClangTidy(TIDY_COLOUR, "/work")).toEqual([
      {
        file: "sub/broken.h",
        line: 1,
        check: "clang-diagnostic-error",
        message: "use of undeclared identifier 'undefined_thing'",
      },
    ]);
  });

  test("paths through .. are resolved, files elsewhere stay absolute, and errors without a place are skipped", () => {
    const output = [
      "/work/sub/../main.cpp:5:11: warning: 10 is a magic number [readability-magic-numbers]",
      "/usr/include/c++/12/bits/stl_vector.h:1123:7: warning: deprecated [clang-diagnostic-deprecated]",
      "/workspace/main.cpp:3:1: warning: another tree [misc-x]",
      "./local.cpp:2:1: warning: relative [misc-y]",
      "error: no input files [clang-diagnostic-error]",
      "error: no such file or directory: '/work/nothere.cpp' [clang-diagnostic-error]",
      "122057 warnings generated.",
      "Error while processing /work/main.cpp.",
    ].join("\n");
    expect(places(parseClangTidy(output, "/work/"))).toEqual([
      "main.cpp:5 readability-magic-numbers",
      "/usr/include/c++/12/bits/stl_vector.h:1123 clang-diagnostic-deprecated",
      "/workspace/main.cpp:3 misc-x",
      "local.cpp:2 misc-y",
    ]);
  });

  test("of several checks the first counts; without a bracket the check is clang's own; line 0 is kept", () => {
    const output = [
      "/work/a.cpp:4:2: warning: two names [cert-err33-c,bugprone-unused-return-value]",
      "/work/a.cpp:0:0: warning: no bracket here",
      "/work/a:b.cpp:7:1: error: a colon in the name [misc-z]",
    ].join("\n");
    expect(places(parseClangTidy(output, "/work"))).toEqual([
      "a.cpp:4 cert-err33-c",
      "a.cpp:0 clang-diagnostic-warning",
      "a:b.cpp:7 misc-z",
    ]);
  });
});

describe("cppcheck", () => {
  test("findings keep their id; information, missing includes and cppcheck's own parser failures are dropped", () => {
    expect(places(parseCppcheck(CPPCHECK, "/work"))).toEqual([
      "main.cpp:19 arrayIndexOutOfBounds",
      "main.cpp:18 knownConditionTrueFalse",
      "main.cpp:7 constParameter",
      "main.cpp:23 shiftTooManyBits",
      "main.cpp:10 uninitvar",
      "more.cpp:16 bufferAccessOutOfBounds",
      "more.cpp:11 containerOutOfBounds",
      "more.cpp:6 unusedFunction",
    ]);
    expect(parseCppcheck(CPPCHECK, "/work")[6].message).toBe(
      "Out of bounds access in 'v[i]', if 'v' size is 3 and 'i' is 3",
    );
  });

  test("absolute paths are made relative and the noise ids are dropped whatever their severity", () => {
    const output = [
      "/work/./sub//x.cpp:3:0: style: The function 'f' is never used. [unusedFunction]",
      "/work/x.cpp:0:0: style: Unmatched suppression: uninitvar [unmatchedSuppression]",
      "/work/x.cpp:0:0: error: Too many #ifdef configurations [toomanyconfigs]",
      "nofile:0:0: information: Active checkers: 106/592 [checkersReport]",
      "/work/x.cpp:12: portability: no column in this template [invalidPointerCast]",
      "Checking /work/x.cpp ...",
    ].join("\r\n");
    expect(places(parseCppcheck(output, "/work"))).toEqual([
      "sub/x.cpp:3 unusedFunction",
      "x.cpp:12 invalidPointerCast",
    ]);
  });
});

describe("cpplint", () => {
  test("each line is a finding named by its category; line 0 is the whole file; the summary lines are skipped", () => {
    expect(places(parseCpplint(CPPLINT, "/work"))).toEqual([
      "main.cpp:0 legal/copyright",
      "main.cpp:2 build/include_subdir",
      "main.cpp:16 readability/casting",
      "util.h:8 build/header_guard",
      "util.h:5 runtime/printf",
      "long.cpp:6 whitespace/line_length",
    ]);
    const [copyright] = parseCpplint(CPPLINT, "/work");
    expect(copyright.message).toBe(
      'No copyright message found.  You should have a line: "Copyright [year] <Copyright Owner>"',
    );
  });

  test("a file named by its absolute path is made relative; skipped inputs are no findings", () => {
    const output = [
      "/work/main.cpp:12:  Lines should be <= 80 characters long  [whitespace/line_length] [2]",
      "Skipping input '/work/nothere.cpp': Can't open for reading",
      "Ignoring notes.txt; not a valid file name (hpp, c++, hh, cc, h++, h, cuh, cxx, c, hxx, cu, cpp)",
    ].join("\n");
    expect(places(parseCpplint(output, "/work"))).toEqual(["main.cpp:12 whitespace/line_length"]);
  });
});

describe("a command stage's output", () => {
  test("one `points comment` line per finding, the comment's leading file:line: naming the place", () => {
    const output =
      "2 /work/main.cpp:12: uses goto\r\n\n0.5 style: too clever\n  3   sub/x.cpp:4:7:   deep nesting  \n1\n";
    expect(parseCommandOutput(output, "/work")).toEqual([
      { file: "main.cpp", line: 12, check: "", message: "uses goto", points: 2 },
      { file: "", line: 0, check: "", message: "style: too clever", points: 0.5 },
      { file: "sub/x.cpp", line: 4, check: "", message: "deep nesting", points: 3 },
      { file: "", line: 0, check: "", message: "", points: 1 },
    ]);
  });

  test("a JSON array of {points, file?, line?, message}", () => {
    const output =
      '\uFEFF [{"points": 5, "file": "/work/main.cpp", "line": 0, "message": "no comments"},\n' +
      '{"points": 1e2, "message": "global", "file": null, "extra": true}]';
    expect(parseCommandOutput(output, "/work")).toEqual([
      { file: "main.cpp", line: 0, check: "", message: "no comments", points: 5 },
      { file: "", line: 0, check: "", message: "global", points: 100 },
    ]);
  });

  test("empty output is no findings", () => {
    for (const empty of ["", "\n", " \r\n\t\n", "[]", " [ ] \n"])
      expect(parseCommandOutput(empty, "/work")).toEqual([]);
  });

  test("points that are not a number from 0 to 1,000,000 make the whole output invalid", () => {
    for (const bad of "-1 x|abc def|1,5 x|NaN x|Infinity x|1e400 x|1000001 x|0x10 x|+1 x|1e6.5".split("|")) {
      expect({ bad, parsed: parseCommandOutput(`1 fine\n${bad}\n`, "/work") }).toEqual({ bad, parsed: null });
    }
    expect(parseCommandOutput("1000000 most\n0 least\n.5 half\n1e3 kilo", "/work")?.map((f) => f.points)).toEqual([
      1_000_000, 0, 0.5, 1000,
    ]);
  });

  test("JSON that is malformed, not an array of findings, or badly typed is invalid", () => {
    const bad = [
      "[1, 2]",
      '[{"points": 1}]',
      '[{"points": "1", "message": "m"}]',
      '[{"points": -1, "message": "m"}]',
      '[{"points": 2000000, "message": "m"}]',
      '[{"points": 1, "message": "m", "line": 1.5}]',
      '[{"points": 1, "message": "m", "line": -3}]',
      '[{"points": 1, "message": "m", "file": 7}]',
      '[{"points": 1, "message": "m"}] trailing',
      '[{"points": 1, "message": "m"},]',
      '{"points": 1, "message": "m"}',
      "[".repeat(100_000) + "]".repeat(100_000),
    ];
    for (const output of bad) expect(parseCommandOutput(output, "/work")).toBeNull();
  });

  test("an over-long line makes the output invalid rather than silently dropping its points", () => {
    expect(parseCommandOutput(`5 ${"x".repeat(70_000)}\n`, "/work")).toBeNull();
  });
});

describe("bounds", () => {
  test("at most 10,000 findings from any parser", () => {
    const line = "/work/main.cpp:1:1: warning: w [misc-w]\n";
    expect(parseClangTidy(line.repeat(20_000), "/work")).toHaveLength(10_000);
    expect(parseCppcheck("main.cpp:1:1: style: s [cstyleCast]\n".repeat(20_000), "/work")).toHaveLength(10_000);
    expect(parseCpplint("a.cpp:1:  m  [whitespace/tab] [1]\n".repeat(20_000), "/work")).toHaveLength(10_000);
    expect(parseCommandOutput("1 m\n".repeat(20_000), "/work")).toHaveLength(10_000);
    const json = JSON.stringify(Array.from({ length: 20_000 }, () => ({ points: 1, message: "m" })));
    expect(parseCommandOutput(json, "/work")).toHaveLength(10_000);
  });

  test("a message is cut at 500 characters with …, never inside a surrogate pair", () => {
    const [long] = parseCpplint(`a.cpp:1:  ${"é".repeat(600)}  [whitespace/tab] [1]`, "/work");
    expect(long.message).toBe(`${"é".repeat(499)}…`);
    const [emoji] = parseCppcheck(`a.cpp:1:1: style: ${"😀".repeat(600)} [x]`, "/work");
    expect(Array.from(emoji.message)).toHaveLength(500);
    expect(emoji.message).toBe(`${"😀".repeat(499)}…`);
    const [exact] = parseCppcheck(`a.cpp:1:1: style: ${"😀".repeat(500)} [x]`, "/work");
    expect(exact.message).toBe("😀".repeat(500));
  });

  test("a line over 64 KiB is skipped and the lines after it are still read", () => {
    const output = `/work/a.cpp:1:1: warning: ${"x".repeat(70_000)} [misc-a]\n/work/b.cpp:2:1: warning: short [misc-b]\n`;
    expect(places(parseClangTidy(output, "/work"))).toEqual(["b.cpp:2 misc-b"]);
  });

  test("30 MB on one line, and 10 MB of short garbage lines, are read in well under a second each", () => {
    const oneLine = "/work/a.cpp:1:1: warning: ".padEnd(30_000_000, "x");
    const garbage = "a.cpp:12:3: garbage [\u001b[1m ~^ [x] [2]\r\n".repeat(250_000);
    for (const parse of [parseClangTidy, parseCppcheck, parseCpplint, parseCommandOutput]) {
      const started = performance.now();
      parse(oneLine, "/work");
      parse(garbage, "/work");
      expect(performance.now() - started).toBeLessThan(1_500);
    }
  });

  test("a line number too big to be exact skips the line", () => {
    expect(parseCppcheck("a.cpp:99999999999999999999:1: style: big [x]\na.cpp:3:1: style: ok [y]", "/work")).toEqual([
      { file: "a.cpp", line: 3, check: "y", message: "ok" },
    ]);
  });
});

// Lines shaped like the tools' own, their fields drawn from pieces the parsers look for and from any text.
const PIECES = [
  "/work/",
  "a.cpp",
  ":",
  "12",
  "0",
  " ",
  "warning: ",
  "[",
  "]",
  "[misc-x,-warnings-as-errors]",
  " [2]",
  "\r",
  "\u001b[1m",
  "^",
  "~",
  "…",
  "😀",
  "\uD800",
  "{",
  '"',
  "-1",
  ".",
];
const piece = fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: "binary", maxLength: 8 }));
const field = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(""));
const number = fc.constantFrom("0", "7", "99999999999999999999", "", "x");
const severity = fc.constantFrom("warning", "error", "note", "style", "information", "");
const toolLine = fc.oneof(
  fc
    .tuple(field, number, number, severity, field, field)
    .map(([f, l, c, s, m, k]) => `${f}:${l}:${c}: ${s}: ${m} [${k}]`),
  fc
    .tuple(field, number, field, field)
    .map(([file, line, message, check]) => `${file}:${line}:  ${message}  [${check}] [3]`),
  field,
);
const toolish = fc.array(toolLine, { maxLength: 20 }).map((lines) => lines.join("\n"));
const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), toolish);

function wellFormed(finding: Finding): boolean {
  return (
    typeof finding.file === "string" &&
    Number.isSafeInteger(finding.line) &&
    finding.line >= 0 &&
    typeof finding.check === "string" &&
    Array.from(finding.message).length <= 500 &&
    !finding.message.includes("\n")
  );
}

describe("any input", () => {
  test("the tools' parsers never throw and return only well-formed findings", () => {
    let found = 0;
    fc.assert(
      fc.property(anyText, (text) => {
        for (const parse of [parseClangTidy, parseCppcheck, parseCpplint]) {
          const findings = parse(text, "/work");
          expect(findings.every(wellFormed)).toBe(true);
          found += findings.length;
        }
      }),
      { numRuns: 2000 },
    );
    expect(found).toBeGreaterThan(0); // the generated lines do reach the parsers' patterns
  });

  test("a command's output is findings with points in range, or null, never a throw", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const parsed = parseCommandOutput(text, "/work");
        if (parsed === null) return;
        for (const finding of parsed) {
          expect(wellFormed(finding) && finding.points! >= 0 && finding.points! <= 1_000_000).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("valid `points comment` lines read back their points and comments in order", () => {
    const entry = fc.record({
      points: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: 0, max: 1_000_000, noNaN: true })),
      comment: fc.string({ maxLength: 40 }).map((text) =>
        text
          .replace(/\s+/g, " ")
          .trim()
          .replace(/^[^\s:]+:\d+:/, ""),
      ),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), (entries) => {
        const output = entries.map(({ points, comment }) => `${points} ${comment}`).join("\n");
        const parsed = parseCommandOutput(output, "/work");
        expect(parsed?.map((f) => [f.points, f.message])).toEqual(entries.map((e) => [e.points, e.comment.trim()]));
      }),
    );
  });
});
