import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crc32, deflateSync } from "node:zlib";
import type { TestApp } from "../helpers/spawn-app";
import type { Cast } from "../helpers/domain-factories";
import { archiveOf } from "../helpers/archive-builders";
import { judgeStack, type JudgeStack } from "../helpers/judging";
import { uploadPackage, verificationOf } from "../helpers/packages";

// A package's verification means what its format means, its notes are seen, its statement is in the title's
// language and its images are served: packages of our own, imported over HTTP and judged by the real judge.
const UID_BASE = 73_000;
let t: TestApp;
let cast: Cast;
let stack: JudgeStack;

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  ({ t, cast } = stack);
}, 60_000);
afterAll(() => stack?.close());

async function importPackage(files: Record<string, string | Buffer>, token = cast.admin.token) {
  return (await uploadPackage(t, cast, { bytes: await archiveOf("zip", files), name: "package.zip" }, token)).body;
}

const verification = (problem: string) => verificationOf(t, cast, problem);

const served = (url: string, token: string) =>
  t.app.handle(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${token}` } }));

/** A 2×2 PNG of our own: signature, IHDR, one IDAT of four grey pixels, IEND. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.from([0, 0x80, 0x80, 0, 0x40, 0x40]);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const SUM =
  '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}\n';
const DIFFERENCE =
  '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a-b);return 0;}\n';
// Reads, then takes 512 MiB a page at a time: out of memory under the 64 MiB limit on every case.
const GREEDY =
  '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);' +
  'for(int i=0;i<512;i++){char*p=malloc(1<<20);if(!p)return 1;memset(p,1,1<<20);}printf("%lld\\n",a+b);return 0;}\n';
const FIGURE = png();

const KATTIS = {
  "problem.yaml": [
    "problem_format_version: 2025-09",
    "name:",
    "  en: Tide Tables",
    "  sv: Tidvattentabeller",
    "type: pass-fail",
    "limits:",
    "  time_limit: 2",
    "  memory: 64",
    "",
  ].join("\n"),
  "statement/problem.en.tex":
    "\\problemname{Tide Tables}\nAdd the morning and the evening tide, in centimetres.\n\n" +
    "\\includegraphics[width=0.4\\textwidth]{tides}\n\\section*{Input}\nTwo integers.\n",
  "statement/problem.sv.md": "# Tidvattentabeller\n\nAddera morgonens och kvällens tidvatten.\n\n![](tides.png)\n",
  "statement/tides.png": FIGURE,
  "attachments/tide_tool.py": "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n",
  "data/sample/1.in": "120 35\n",
  "data/sample/1.ans": "155\n",
  "data/secret/1.in": "-40 300\n",
  "data/secret/1.ans": "260\n",
  "data/secret/2.in": "9000000000 9000000000\n",
  "data/secret/2.ans": "18000000000\n",
  "submissions/accepted/tides.c": SUM,
  "submissions/run_time_error/greedy.c": GREEDY,
  "submissions/wrong_answer/difference.c": DIFFERENCE,
  "submissions/wrong_answer/old.py": "#!/usr/bin/env python2\na, b = map(int, raw_input().split())\nprint a - b\n",
  "submissions/slow_accepted/tides.py": "a, b = map(int, input().split())\nprint(a + b)\n",
};

describe("a Kattis 2025-09 package", () => {
  let problem: any;

  test("the answer lists the problem with its notes and attachments; the statement is the title's language", async () => {
    const answer = await importPackage(KATTIS);
    expect(answer.errorCode).toBe("Success");
    expect(answer.data.count).toBe(1);
    problem = answer.data.results[0];
    expect(problem).toMatchObject({ title: "Tide Tables", format: "kattis", submissions: 5, skipped: 2 });
    // English from the LaTeX, not the Swedish Markdown: the title's language first.
    expect(problem.content).toContain("Add the morning and the evening tide");
    expect(problem.content).not.toContain("Addera");
    const base = `/api/v1/domains/${cast.domain.id}/problems/${problem.id}/attachments`;
    expect(problem.content).toContain(`![](${base}/tides.png)`);
    expect(problem.notes).toEqual([
      "statement/problem.en.tex: LaTeX kept as its text (commands dropped; tables and formulas are not rendered)",
      "statement/problem.sv.md kept among the files (not shown)",
    ]);
    expect(problem.attachments).toEqual([
      {
        name: "attachments/tide_tool.py",
        size: KATTIS["attachments/tide_tool.py"].length,
        url: `${base}/attachments/tide_tool.py`,
      },
      { name: "tides.png", size: FIGURE.length, url: `${base}/tides.png` },
    ]);
    // The problem keeps them: its import record, for anyone who may see the problem.
    const record = await t.api.get(`/domains/${cast.domain.id}/problems/${problem.id}/package/import`, {
      token: cast.member.token,
    });
    expect(record.body.data).toMatchObject({
      format: "kattis",
      notes: problem.notes,
      attachments: problem.attachments,
    });
  }, 120_000);

  test("the image is served as it was, inline and sandboxed; a tool as a download; test data never", async () => {
    const image = await served(problem.attachments[1].url, cast.member.token);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(FIGURE)).toBe(true);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(image.headers.get("content-security-policy")).toContain("sandbox");
    const tool = await served(problem.attachments[0].url, cast.member.token);
    expect(tool.headers.get("content-type")).toBe("application/octet-stream");
    expect(tool.headers.get("content-disposition")).toBe(
      "attachment; filename=\"tide_tool.py\"; filename*=UTF-8''tide_tool.py",
    );
    const base = `/api/v1/domains/${cast.domain.id}/problems/${problem.id}/attachments`;
    // Business errors keep Horse's envelope (HTTP 200, the errorCode says it).
    for (const path of [
      "data/secret/2.ans",
      "statement/problem.en.tex",
      "%2E%2E%2Fpackage%2Fverification",
      "submissions/accepted/tides.c",
    ]) {
      const refused = await (await served(`${base}/${path}`, cast.admin.token)).text();
      expect(JSON.parse(refused).errorCode).toBe("FileDownloadError");
      expect(refused).not.toContain("18000000000");
    }
  }, 60_000);

  test("verification: out of memory is run_time_error's, python2 and an undefined folder are listed skipped", async () => {
    const view = await verification(problem.id);
    expect(view).toMatchObject({
      format: "kattis",
      count: 5,
      pending: 0,
      mismatches: 0,
      skipped: 2,
      notes: problem.notes,
    });
    const byPath = Object.fromEntries(view.results.map((r: { path: string }) => [r.path, r]));
    expect(byPath["submissions/accepted/tides.c"]).toMatchObject({
      expected: "accepted",
      actual: "accepted",
      matches: true,
      reason: "every case accepted: meets accepted/ (permits accepted)",
    });
    expect(byPath["submissions/run_time_error/greedy.c"]).toMatchObject({
      expected: "run_time_error",
      actual: "memory_limit_exceeded",
      matches: true,
    });
    expect(byPath["submissions/run_time_error/greedy.c"].reason).toContain(
      "case 1 (data/sample/1.in) memory_limit_exceeded",
    );
    expect(byPath["submissions/wrong_answer/difference.c"]).toMatchObject({ actual: "wrong_answer", matches: true });
    expect(byPath["submissions/wrong_answer/old.py"]).toMatchObject({
      record: null,
      matches: null,
      reason: "not judged: its first line declares python2 (#!/usr/bin/env python2), not python3",
    });
    expect(byPath["submissions/slow_accepted/tides.py"].reason).toContain(
      "submissions/slow_accepted/ is not a folder the format defines",
    );
  }, 240_000);

  test("a hidden problem's files are not served to a student", async () => {
    const path = `/domains/${cast.domain.id}/problems/${problem.id}`;
    expect((await t.api.patch(path, { hidden: true }, { token: cast.admin.token })).body.errorCode).toBe("Success");
    const image = await served(problem.attachments[1].url, cast.member.token);
    expect(((await image.json()) as { errorCode: string }).errorCode).toBe("ProblemNotFoundError");
    expect((await t.api.get(`${path}/package/import`, { token: cast.member.token })).body.errorCode).toBe(
      "ProblemNotFoundError",
    );
    expect((await served(problem.attachments[1].url, cast.admin.token)).status).toBe(200);
  }, 60_000);
});

describe("a Polygon package's tags", () => {
  const xml = (solutions: string) => `<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem revision="7" short-name="tide-sum">
  <names><name language="russian" value="Приливы"/><name language="english" value="Tide Sum"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>2000</time-limit>
      <memory-limit>67108864</memory-limit>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" sample="true"/><test method="manual"/></tests>
    </testset>
  </judging>
  <assets><solutions>${solutions}</solutions></assets>
</problem>
`;
  const solution = (tag: string, path: string, type = "c.gcc") =>
    `<solution tag="${tag}"><source path="${path}" type="${type}"/></solution>`;

  test("rejected is any failure, failed a crash, a Python 2 solution skipped; the English statement shown", async () => {
    const answer = await importPackage({
      "problem.xml": xml(
        solution("main", "solutions/sum.c") +
          solution("rejected", "solutions/difference.c") +
          solution("failed", "solutions/crash.c") +
          solution("wrong-answer", "solutions/old.py", "python.2") +
          solution("do-not-run", "solutions/sum.c"),
      ),
      "statement-sections/english/legend.tex": "Add the two tides.\n",
      "statement-sections/english/input.tex": "Two integers $a$ and $b$.\n",
      "statement-sections/russian/legend.tex": "Сложите два прилива.\n",
      "solutions/sum.c": SUM,
      "solutions/difference.c": DIFFERENCE,
      "solutions/crash.c": "#include <stdlib.h>\nint main(void){abort();}\n",
      "solutions/old.py": "print 1\n",
      "tests/01": "1 2\n",
      "tests/01.a": "3\n",
      "tests/02": "5 5\n",
      "tests/02.a": "10\n",
    });
    expect(answer.errorCode).toBe("Success");
    const problem = answer.data.results[0];
    expect(problem).toMatchObject({
      title: "Tide Sum",
      content: "Add the two tides.\n\n## Input\n\nTwo integers $a$ and $b$.",
    });
    expect(problem.notes).toContain("statement-sections/russian/ kept among the files (not shown)");
    const view = await verification(problem.id);
    expect(view).toMatchObject({ count: 5, mismatches: 0, pending: 0 });
    expect(view.results.map((r: any) => [r.expected, r.actual, r.matches])).toEqual([
      ["main", "accepted", true],
      ["rejected", "wrong_answer", true],
      ["failed", "runtime_error", true],
      ["wrong-answer", null, null],
      ["do-not-run", null, null],
    ]);
    expect(view.results[3].skipped).toBe("declared python2, which no language preset here runs");
    expect(view.results[4].skipped).toBe('the tag "do-not-run" is not one of Polygon\'s verdict tags');
  }, 240_000);
});
