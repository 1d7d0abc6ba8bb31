import type { SimilarityReport } from "./similarity-report.entity";
import { reportView } from "./similarity.service";
import { escapeHtml, scriptJson } from "../../core/page-text";

/**
 * The report as one self-contained page for staff (docs/running-a-course.md "Code similarity"): no build step, no
 * outside asset, nothing fetched. The ranked pairs with a bar each; a click opens both sources side by side with
 * the fragments they share highlighted, a colour per fragment. The data rides in the page as JSON (every
 * `<` escaped, so no source can close the script), and the script writes it as text, never as markup.
 */

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#222}
h1{font-size:1.3rem;margin:0 0 .3rem}
p.meta{color:#555;margin:0 0 1rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd}
tr.pair{cursor:pointer}tr.pair:hover,tr.pair.open{background:#f3f6fb}
.bar{background:#e7e7e7;width:12rem;height:.7rem;border-radius:.35rem;overflow:hidden}
.bar span{display:block;height:100%;background:#c0392b}
#detail{margin-top:1.5rem}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
pre{margin:0;font:12px/1.45 ui-monospace,monospace;background:#fafafa;border:1px solid #ddd;overflow:auto;
  max-height:70vh}
pre div{padding:0 .4rem;white-space:pre}
pre div.n{color:#999}
.f0{background:#ffe3a3}.f1{background:#c9f0d3}.f2{background:#cfe3ff}.f3{background:#f6d0f0}.f4{background:#d9d2ff}
`;

const SCRIPT = `
const data = JSON.parse(document.getElementById("report").textContent);
const rows = document.getElementById("pairs");
const detail = document.getElementById("detail");
const cell = (tr, text) => {
  const td = document.createElement("td"); td.textContent = text; tr.append(td); return td;
};
const name = (side) => side.username || side.user || "(deleted user)";
data.pairs.forEach((pair) => {
  const tr = document.createElement("tr");
  tr.className = "pair";
  tr.dataset.index = pair.index;
  cell(tr, "#" + (pair.index + 1));
  cell(tr, name(pair.left) + " \\u2194 " + name(pair.right));
  cell(tr, pair.language);
  const bar = cell(tr, "");
  const outer = document.createElement("div"); outer.className = "bar";
  const inner = document.createElement("span"); inner.style.width = Math.round(pair.similarity * 100) + "%";
  outer.append(inner); bar.append(outer);
  cell(tr, (pair.similarity * 100).toFixed(1) + " %");
  cell(tr, String(pair.longestFragment));
  tr.addEventListener("click", () => show(pair.index, tr));
  rows.append(tr);
});
function source(side, ranges) {
  const pre = document.createElement("pre");
  side.source.split("\\n").forEach((line, i) => {
    const div = document.createElement("div");
    const hit = ranges.findIndex(([from, to]) => i + 1 >= from && i + 1 <= to);
    if (hit >= 0) div.className = "f" + (hit % 5);
    div.textContent = String(i + 1).padStart(4) + "  " + line;
    pre.append(div);
  });
  return pre;
}
function show(index, tr) {
  document.querySelectorAll("tr.open").forEach((row) => row.classList.remove("open"));
  tr.classList.add("open");
  const summary = data.pairs[index];
  const left = data.submissions[summary.at[0]], right = data.submissions[summary.at[1]];
  const pair = { ...summary, left: { ...summary.left, ...left }, right: { ...summary.right, ...right } };
  detail.replaceChildren();
  const title = document.createElement("h2");
  title.textContent = name(pair.left) + " (" + pair.left.path + ") \\u2194 " +
    name(pair.right) + " (" + pair.right.path + "): " + (pair.similarity * 100).toFixed(1) + " %";
  const sides = document.createElement("div"); sides.className = "sides";
  sides.append(
    source(pair.left, pair.fragments.map((f) => f.left)),
    source(pair.right, pair.fragments.map((f) => f.right)),
  );
  detail.append(title, sides);
}
`;

/** The page for a problem's report (its title shown as text). */
export function reportPage(report: SimilarityReport, problemTitle: string): string {
  const view = reportView(report);
  // Each source once; the pairs point at them.
  const data = {
    submissions: report.submissions.map((s) => ({ path: s.path, source: s.source })),
    pairs: view.pairs.map((pair, i) => ({
      ...pair,
      at: [report.pairs[i].left, report.pairs[i].right],
      fragments: report.pairs[i].fragments,
    })),
  };
  const languages = view.language.map((l) => `${l.name}: ${l.submissions}`).join(", ") || "none";
  const status =
    view.state === "done"
      ? `${view.submissions} submissions (${languages}), ${view.pairs.length} pairs, made ${view.finishedAt}`
      : `report ${view.state}${view.reason ? `: ${view.reason}` : ""}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Similarity: ${escapeHtml(problemTitle)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Code similarity: ${escapeHtml(problemTitle)}</h1>
<p class="meta">${escapeHtml(status)}. A high similarity is a reason to look, not proof of copying.</p>
<table>
<thead><tr>
<th>pair</th><th>users</th><th>language</th><th>similarity</th><th></th><th>longest fragment</th>
</tr></thead>
<tbody id="pairs"></tbody>
</table>
<section id="detail"></section>
<script type="application/json" id="report">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
