import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { kattisSubmissions, matches } from "../../src/modules/problem-packages/kattis/kattis-submissions";
import { languageOf } from "../../src/modules/problem-packages/model/package-languages";
import type { PackageCase } from "../../src/modules/problem-packages/model/package-model";
import { linkAttachments } from "../../src/modules/problem-packages/problem-packages.service";
import { judgeSubmission } from "../../src/modules/problem-packages/verification-rules";

// What a package's folder or tag means, read as the format's specification says, and judged against records.

const LANGUAGES = ["c", "cpp", "python3", "java", "go", "rust", "javascript"];
const bytes = (text: string) => new TextEncoder().encode(text);
const filesOf = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([p, t]) => [p, bytes(t)]));
const CASES: PackageCase[] = [
  { input: "data/sample/1.in", answer: "data/sample/1.ans", category: "pretest", group: null },
  { input: "data/secret/small/1.in", answer: "data/secret/small/1.ans", category: "secret", group: "small" },
  { input: "data/secret/large/1.in", answer: "data/secret/large/1.ans", category: "secret", group: "large" },
];
const context = { casePaths: CASES.map((c) => c.input), fullScore: 100 };
const record = (states: string[], score = 0, state = "rejected") => ({
  state,
  score,
  cases: states.map((s) => ({ state: s })),
});
const submissionsOf = (entries: Record<string, string>, legacy = false, notes: string[] = []) =>
  Object.fromEntries(kattisSubmissions(filesOf(entries), CASES, legacy, LANGUAGES, notes).map((s) => [s.path, s]));

describe("Kattis folders as the 2025-09 specification defines them", () => {
  const subs = submissionsOf({
    "submissions/accepted/a.py": "print(1)\n",
    "submissions/run_time_error/oom.c": "int main(){}\n",
    "submissions/time_limit_exceeded/slow.cpp": "int main(){}\n",
    "submissions/rejected/any.py": "print(0)\n",
    "submissions/brute_force/brute.py": "print(1)\n",
    "submissions/slow_accepted/s.py": "print(1)\n",
    "submissions/partially_accepted/p.py": "print(1)\n",
    "submissions/wrong_answer/py2.py": "#!/usr/bin/env python2\nprint 1\n",
    "submissions/accepted/several/main.py": "import util\n",
    "submissions/accepted/several/util.py": "x = 1\n",
  });
  const judge = (path: string, states: string[], score = 0) =>
    judgeSubmission({ ...subs[path], record: "r" }, record(states, score), context);

  test("running out of memory in run_time_error/ is a run-time error, as Kattis reports it", () => {
    const verdict = judge("submissions/run_time_error/oom.c", ["accepted", "accepted", "memory_limit_exceeded"]);
    expect(verdict).toMatchObject({ actual: "memory_limit_exceeded", matches: true });
    expect(verdict.reason).toContain("case 3 (data/secret/large/1.in) memory_limit_exceeded: meets run_time_error/");
    // But not a wrong answer: 2025-09 permits only AC and RTE there.
    expect(judge("submissions/run_time_error/oom.c", ["wrong_answer", "runtime_error", "accepted"])).toMatchObject({
      matches: false,
      reason: expect.stringContaining("case 1 (data/sample/1.in) wrong_answer, which run_time_error/ does not permit"),
    });
  });

  test("time_limit_exceeded/ must time out once and never answer wrong; rejected/ is any failure", () => {
    expect(
      judge("submissions/time_limit_exceeded/slow.cpp", ["accepted", "time_limit_exceeded", "accepted"]),
    ).toMatchObject({ matches: true });
    expect(judge("submissions/time_limit_exceeded/slow.cpp", ["accepted", "accepted", "accepted"])).toMatchObject({
      matches: false,
      reason: "no case time_limit_exceeded, as time_limit_exceeded/ requires",
    });
    for (const failure of ["wrong_answer", "runtime_error", "time_limit_exceeded", "output_limit_exceeded"])
      expect(judge("submissions/rejected/any.py", ["accepted", failure, "accepted"]).matches).toBe(true);
    expect(judge("submissions/rejected/any.py", ["accepted", "accepted", "accepted"]).matches).toBe(false);
    expect(judge("submissions/brute_force/brute.py", ["accepted", "time_limit_exceeded", "wrong_answer"]).matches).toBe(
      false,
    );
  });

  test("every submission is listed: a folder the format does not define and a file it cannot judge say why", () => {
    expect(subs["submissions/slow_accepted/s.py"]).toMatchObject({ language: null, rules: [] });
    expect(subs["submissions/slow_accepted/s.py"].skipped).toContain("not a folder the format defines");
    // partially_accepted is the legacy format's, not 2025-09's.
    expect(subs["submissions/partially_accepted/p.py"].skipped).toContain("not a folder the format defines");
    expect(subs["submissions/wrong_answer/py2.py"]).toMatchObject({
      language: null,
      skipped: "its first line declares python2 (#!/usr/bin/env python2), not python3",
    });
    expect(subs["submissions/accepted/several"]).toMatchObject({
      files: ["submissions/accepted/several/main.py", "submissions/accepted/several/util.py"],
      skipped: "a program of 2 files: a submission here is judged as one file",
    });
    expect(judge("submissions/wrong_answer/py2.py", [])).toMatchObject({ matches: null, actual: null });
  });

  test("the legacy table: partially_accepted is a partial score, wrong_answer may not crash", () => {
    const legacy = submissionsOf(
      { "submissions/partially_accepted/p.py": "print(1)\n", "submissions/run_time_error/r.py": "x\n" },
      true,
    );
    const partial = { ...legacy["submissions/partially_accepted/p.py"], record: "r" };
    expect(partial).toMatchObject({ score: "partial", skipped: null, language: "python3" });
    expect(judgeSubmission(partial, record(["accepted", "accepted", "wrong_answer"], 40), context).matches).toBe(true);
    expect(judgeSubmission(partial, record(["accepted", "accepted", "accepted"], 100), context)).toMatchObject({
      matches: false,
      reason: "score 100 of 100, where partially_accepted means a partial one",
    });
    // Legacy run_time_error: crashes somewhere, anything else allowed.
    const crash = { ...legacy["submissions/run_time_error/r.py"], record: "r" };
    expect(judgeSubmission(crash, record(["wrong_answer", "runtime_error", "accepted"]), context).matches).toBe(true);
  });
});

describe("submissions.yaml", () => {
  const notes: string[] = [];
  const subs = submissionsOf(
    {
      "submissions/submissions.yaml": [
        "time_limit_exceeded:",
        "  permitted: [AC, WA, TLE]",
        "slow_accepted:",
        "  permitted: [AC, TLE]",
        "accepted/solves_small.py:",
        "  sample:",
        "    permitted: [AC]",
        "  secret/small:",
        "    permitted: [AC]",
        "  message: too slow",
        "mixed/{a,b}.py:",
        "  score: [20, 60]",
        "  language: python3",
        "",
      ].join("\n"),
      "submissions/time_limit_exceeded/t.py": "print(1)\n",
      "submissions/slow_accepted/s.py": "print(1)\n",
      "submissions/accepted/solves_small.py": "print(1)\n",
      "submissions/mixed/a.py": "print(1)\n",
      "submissions/mixed/c.py": "print(1)\n",
    },
    false,
    notes,
  );

  test("a folder's key overrides its meaning; a glob adds rules and a score; test groups narrow a rule", () => {
    expect(subs["submissions/time_limit_exceeded/t.py"].rules[0]).toMatchObject({
      permitted: ["accepted", "wrong_answer", "time_limit_exceeded"],
      required: ["time_limit_exceeded"],
    });
    expect(subs["submissions/slow_accepted/s.py"]).toMatchObject({ skipped: null, language: "python3" });
    const small = subs["submissions/accepted/solves_small.py"];
    expect(small.rules.map((r) => r.cases ?? "all")).toEqual(["all", [0], [1]]);
    expect(subs["submissions/mixed/a.py"]).toMatchObject({ score: { min: 20, max: 60 }, skipped: null });
    expect(subs["submissions/mixed/c.py"].skipped).toContain("not a folder the format defines");
    expect(notes).toEqual(["submissions.yaml: accepted/solves_small.py: a judge message requirement is not checked"]);
  });

  test("a list that is not of AC, WA, TLE, RTE is refused, naming the key", () => {
    expect(() =>
      submissionsOf({
        "submissions/submissions.yaml": "accepted:\n  permitted: [OK]\n",
        "submissions/accepted/a.c": "",
      }),
    ).toThrow("submissions/submissions.yaml: accepted: permitted must be a list of AC, WA, TLE, RTE");
  });
});

describe("globs as the specification matches them", () => {
  test("a name, a parent folder, braces, and * within one name only", () => {
    expect(matches("accepted", "accepted/a.py")).toBe(true);
    expect(matches("accepted/*", "accepted/a.py")).toBe(true);
    expect(matches("*.py", "accepted/a.py")).toBe(false);
    expect(matches("accepted/{a,b}.py", "accepted/b.py")).toBe(true);
    expect(matches("secret/*-easy", "secret/03-easy/1")).toBe(true);
    expect(matches("secret/*-easy", "secret/03-hard/1")).toBe(false);
  });

  test("any text is matched literally outside * and braces", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => !/[*{}/]/.test(s) && s !== ""),
        (name) => matches(name, `${name}/x`),
      ),
    );
  });
});

describe("which preset judges a file", () => {
  const files = filesOf({
    "a.py": "#!/usr/bin/python3\nprint(1)\n",
    "b.py": "#! /usr/bin/env -S pypy3 -O\n",
    "c.js": "#!/usr/bin/env node\n",
    "d.cc": "int main(){}\n",
    "e.pas": "begin end.\n",
    "f.sh": "#!/bin/sh\n",
  });
  test("by extension, a declared language, and the interpreter its first line names", () => {
    expect(languageOf(["a.py"], files, LANGUAGES).language).toBe("python3");
    expect(languageOf(["b.py"], files, LANGUAGES).language).toBe("python3");
    expect(languageOf(["c.js"], files, LANGUAGES).language).toBe("javascript");
    expect(languageOf(["d.cc"], files, LANGUAGES).language).toBe("cpp");
    expect(languageOf(["e.pas"], files, LANGUAGES).skipped).toBe("no language preset runs .pas files");
    expect(languageOf(["a.py"], files, LANGUAGES, "Pascal").skipped).toBe(
      "declared Pascal, which no language preset here runs",
    );
    expect(languageOf(["d.cc"], files, ["c"]).skipped).toBe("the problem's config has no cpp language");
  });
});

describe("statement links to attachments", () => {
  test("by name, ./name, encoded, HTML and Hydro's file://; other links untouched", () => {
    const attachments = [{ name: "kattis.png" }, { name: "a b.png" }, { name: "fig.svg" }];
    const content =
      '![logo](kattis.png) ![x](./kattis.png "t") ![s](a%20b.png) <img src="kattis.png"> ![h](file://fig.svg) ' +
      "[site](https://example.com/kattis.png) ![no](other.png)";
    expect(linkAttachments(content, attachments, "d1/problems/p1")).toBe(
      "![logo](/api/v1/domains/d1/problems/p1/attachments/kattis.png) " +
        '![x](/api/v1/domains/d1/problems/p1/attachments/kattis.png "t") ' +
        "![s](/api/v1/domains/d1/problems/p1/attachments/a%20b.png) " +
        '<img src="/api/v1/domains/d1/problems/p1/attachments/kattis.png"> ' +
        "![h](/api/v1/domains/d1/problems/p1/attachments/fig.svg) " +
        "[site](https://example.com/kattis.png) ![no](other.png)",
    );
  });
});
