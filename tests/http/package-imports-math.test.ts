import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { archiveOf } from "../helpers/archive-builders";
import { fpsFile, fpsItem } from "../helpers/big-packages";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// Statements pasted from pages that rendered their math: each formula comes as KaTeX's or MathJax's HTML, its
// MathML and its TeX at once, and is imported as its TeX between dollars, once.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

/** A formula as KaTeX renders it: MathML with the TeX annotation, then the HTML a reader sees. */
const katex = (tex: string, mathml: string, shown: string) =>
  `<span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics>` +
  `<mrow>${mathml}</mrow><annotation encoding="application/x-tex">${tex}</annotation></semantics></math></span>` +
  `<span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" style="height:0.43em;">` +
  `</span><span class="mord mathnormal">${shown}</span></span></span></span>`;
const N = katex("n", "<mi>n</mi>", "n");
const RANGE = katex(
  "1 \\le n &lt; 10^5",
  "<mn>1</mn><mo>≤</mo><mi>n</mi><mo>&lt;</mo><msup><mn>10</mn><mn>5</mn></msup>",
  "1≤n<10⁵",
);
const MATHJAX2 =
  '<span class="MathJax_Preview" style="color: inherit;"></span><span class="MathJax" id="MathJax-Element-1-Frame">' +
  '<nobr><span class="math"><span class="mi">m</span></span></nobr><span class="MJX_Assistive_MathML">' +
  '<math><mi>m</mi></math></span></span><script type="math/tex" id="MathJax-Element-1">m \\times k</script>';
const MATHJAX3 =
  '<mjx-container class="MathJax" jax="CHTML" display="true"><mjx-math class="MJX-TEX"><mjx-mi>a</mjx-mi></mjx-math>' +
  '<mjx-assistive-mml display="block"><math display="block"><msub><mi>a</mi><mi>i</mi></msub><mo>≤</mo>' +
  "<mfrac><mn>1</mn><mn>2</mn></mfrac></math></mjx-assistive-mml></mjx-container>";

describe("rendered math in FPS and Hydro statements becomes TeX once", () => {
  test("an FPS statement's KaTeX, MathJax 2 and 3 and bare MathML are $…$ and $$…$$", async () => {
    const description =
      `<p>给定一棵 ${N} 个节点的树，${RANGE}。</p><p>求 ${MATHJAX2}。</p>${MATHJAX3}` +
      "<p>又 <math><msup><mi>x</mi><mn>2</mn></msup></math> 与 $y$。</p>";
    const xml = fpsFile([fpsItem({ title: "树", description })]);

    const { body } = await uploadPackage(t, cast, { bytes: xml, name: "tree.xml" });

    expect(body.errorCode).toBe("Success");
    const { content } = body.data.results[0];
    expect(content).toContain("给定一棵 $n$ 个节点的树，$1 \\le n < 10^5$。");
    expect(content).toContain("求 $m \\times k$。");
    expect(content).toContain("$$a_i\\le \\frac{1}{2}$$");
    expect(content).toContain("又 $x^2$ 与 $y$。");
    expect(content).not.toContain("nnn");
    expect(content).not.toMatch(/katex|MathJax|mjx/i);
  });

  test("a Hydro statement with KaTeX's HTML pasted into its Markdown", async () => {
    const zip = await archiveOf("zip", {
      "problem.yaml": "title: 节点\n",
      "problem_zh.md": `# 节点\n\n给定 ${N} 个节点，${RANGE}。\n`,
      "testdata/1.in": "1\n",
      "testdata/1.out": "1\n",
    });

    const { body } = await uploadPackage(t, cast, { bytes: zip, name: "hydro.zip" });

    expect(body.errorCode).toBe("Success");
    expect(body.data.results[0].content).toBe("# 节点\n\n给定 $n$ 个节点，$1 \\le n < 10^5$。\n");
  });
});
