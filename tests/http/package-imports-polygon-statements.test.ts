import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { archiveOf } from "../helpers/archive-builders";
import { uploadPackage } from "../helpers/packages";

// A Polygon package without statement-sections/ (docs/problem-packages.md "Statements and attachments"): its
// statement whole in statements/<language>/problem.tex (olymp.sty), the PDF Polygon built beside it. Both come
// in: the sections as Markdown, the examples as code blocks, the PDF as an attachment at its url.
let t: TestApp;
let cast: Cast;

const PDF = "%PDF-1.4\n% a PDF's first bytes, and enough of them to be told apart\n";
const PROBLEM_TEX = String.raw`\begin{problem}{Sum of Two}{standard input}{standard output}{1 second}{256 megabytes}

Given two integers $a$ and $b$ ($|a|, |b| \le 10^{9}$), print \textbf{their sum}.

\InputFile
The only line holds $a$ and $b$.

\OutputFile
Print $a + b$.

\Examples

\exmp{1 2
}{3
}%

\Note
Mind the \emph{negative} numbers.

\end{problem}
`;

const problemXml = (names: string) => `<?xml version="1.0" encoding="utf-8"?>
<problem revision="7" short-name="sum-of-two">
  <names>${names}</names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>268435456</memory-limit>
      <test-count>1</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" sample="true"/></tests>
    </testset>
  </judging>
</problem>
`;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
});
afterAll(() => t.close());

test("statements/english/problem.tex only: its sections and examples as the statement, the PDF attached", async () => {
  const files = {
    "problem.xml": problemXml('<name language="english" value="Sum of Two"/>'),
    "statements/english/problem.tex": PROBLEM_TEX,
    "statements/.pdf/english/problem.pdf": PDF,
    "tests/01": "1 2\n",
    "tests/01.a": "3\n",
  };
  const answer = await uploadPackage(t, cast, { bytes: await archiveOf("zip", files), name: "sum-of-two.zip" });
  expect(answer.body.errorCode).toBe("Success");
  const imported = answer.body.data.results[0];
  const problem = (await t.api.get(`/domains/${cast.domain.id}/problems/${imported.id}`, { token: cast.admin.token }))
    .body.data;
  expect(problem.title).toBe("Sum of Two");
  const content = problem.content as string;
  expect(content).toContain("Given two integers $a$ and $b$");
  expect(content).toContain("their sum");
  for (const heading of ["## Input", "## Output", "## Examples", "## Notes"]) expect(content).toContain(heading);
  expect(content).toContain("```\n1 2\n```");
  expect(content).toContain("```\n3\n```");
  expect(content).not.toMatch(/\\(InputFile|OutputFile|exmp|begin|textbf|emph)/);
  const pdf = (imported.attachments as { name: string; url: string }[]).find((a) => a.name.endsWith("problem.pdf"));
  expect(pdf).toBeDefined();
  const served = await t.app.handle(
    new Request(`http://localhost${pdf!.url}`, { headers: { authorization: `Bearer ${cast.member.token}` } }),
  );
  expect(served.status).toBe(200);
  expect(await served.text()).toBe(PDF);
});

test("statements/russian/problem.html only (no .tex): its text, scripts and tags gone, escapes kept", async () => {
  const html = `<html><head><script>alert(1)</script></head><body><h1>Сумма</h1>
<p>Даны числа a &amp; b.</p><script>steal()</script><p>Выведите &lt;сумму&gt;, не &lt;script&gt;.</p></body></html>`;
  const files = {
    "problem.xml": problemXml('<name language="russian" value="Сумма двух"/>'),
    "statements/russian/problem.html": html,
    "tests/01": "1 2\n",
    "tests/01.a": "3\n",
  };
  const answer = await uploadPackage(t, cast, { bytes: await archiveOf("zip", files), name: "sum-ru.zip" });
  expect(answer.body.errorCode).toBe("Success");
  const imported = answer.body.data.results[0];
  const problem = (await t.api.get(`/domains/${cast.domain.id}/problems/${imported.id}`, { token: cast.admin.token }))
    .body.data;
  expect(problem.title).toBe("Сумма двух");
  // Entities stay entities: Markdown shows them as characters, and an escaped <script> never becomes markup.
  expect(problem.content).toContain("Даны числа a &amp; b.");
  expect(problem.content).toContain("Выведите &lt;сумму&gt;, не &lt;script&gt;.");
  expect(problem.content).not.toMatch(/<|alert|steal/);
});
