import { createHash } from "node:crypto";
import { PAGE_SCRIPT } from "./scoreboard-page-script";
import type { ScoreboardView } from "./scoreboard.schemas";
import { escapeHtml, scriptJson } from "../../core/page-text";

/**
 * A set's scoreboard as one self-contained page for a projector (docs/contests.md): no build step, no outside
 * asset. The board rides in the page as JSON (every `<` escaped, so no username can close the script) and the
 * page's script draws it as text, then follows the set's record stream to redraw it live
 * (scoreboard-page-script.ts). Colours and a mark per kind tell solved, first to solve, tried and pending apart; a
 * banner says when the board is frozen or sealed.
 */

/*
 * Sized for a projector read from the back of a room (docs/contests.md, "The board as a page"): type follows the
 * smaller of the window's width and height, so a 1920×1080 screen sets 25.9 px and its smallest text 20.7 px; the
 * columns are fixed (a live redraw never moves them), the name column a fifth of the width and the problems
 * sharing the rest; the board's box takes the height left by the title and the legend, and the script sizes the
 * rows so that whole rows fill it, then turns its pages. Cells are dark with white text or light with dark text,
 * each kind with a mark of its own, so that a washed-out projector or a colour-blind reader loses none of them.
 * No inline style attribute: the policy would refuse it.
 */
const STYLE = `
html{font-size:clamp(14px,min(1.35vw,2.4vh),48px)}
body{font:1rem/1.25 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,
  "Noto Sans CJK SC","Source Han Sans SC","WenQuanYi Micro Hei","PingFang SC","Microsoft YaHei",sans-serif;
  margin:0;padding:.35rem .5rem;box-sizing:border-box;height:100vh;display:flex;flex-direction:column;
  color:#111;background:#fff}
header{display:flex;align-items:baseline;gap:.3rem 1.2rem;flex:none;min-width:0}
h1{font-size:1.45rem;margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.meta{color:#3b434b;font-size:.8rem;display:flex;gap:1rem;align-items:baseline;margin:0;white-space:nowrap}
.state::before{content:"";display:inline-block;width:.65em;height:.65em;border-radius:50%;margin-right:.35em;
  background:#6e7781}
.state.live::before{background:#1a7f37}.state.stale::before{background:#bf8700}.state.off::before{background:#cf222e}
.banner{flex:none;padding:.2rem .7rem;margin:.2rem 0 .3rem;border-radius:.3rem;font-weight:600;font-size:.9rem}
.banner.frozen{background:#ddf4ff;color:#0a3069;border:2px solid #0969da}
.banner.sealed{background:#fbefff;color:#512a97;border:2px solid #8250df}
#board{flex:1 1 auto;min-height:0;overflow:auto;scrollbar-width:none}
table{table-layout:fixed;width:100%;border-collapse:collapse}
col.rank{width:2.6rem}col.name{width:20%}col.num{width:4.4rem}
th,td{padding:.1rem .2rem;text-align:center;overflow:hidden}
td{border-bottom:1px solid #c9d1d9}
tbody tr{height:var(--row,2.3rem)}
th{position:sticky;top:0;z-index:1;background:#e3e7ec;font-size:.8rem;vertical-align:bottom;line-height:1.15}
th.problem .letter{display:block;font-size:1.2rem}
th.problem .title{display:block;font-weight:400;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
td.rank{font-weight:700}
td.name,th.name{text-align:left}
td.name{font-weight:600;white-space:nowrap;text-overflow:ellipsis}
td.num{font-variant-numeric:tabular-nums;font-weight:700}
tbody tr:nth-child(even){background:#eef1f4}
td.cell{font-variant-numeric:tabular-nums;border-left:3px solid #fff;border-right:3px solid #fff;line-height:1.1}
.cell .main{font-weight:700}
.cell .sub{font-size:.8rem}
.solved{background:#176c33;color:#fff}.first{background:#0b4a20;color:#fff}
.partial{background:#ffe08a;color:#3d2c00}.tried{background:#ffd6d3;color:#7a1014}
.pending{background:#fff;color:#0a3069;outline:.15rem dashed #0a3069;outline-offset:-.25rem}
.key.pending{outline-offset:0}
.cell.solved .main::before,.key.solved::before{content:"\\2713\\a0"}
.cell.first .main::before,.key.first::before{content:"\\2605\\a0"}
.cell.partial .main::before,.key.partial::before{content:"\\25D1\\a0"}
.cell.tried .main::before,.key.tried::before{content:"\\2717\\a0"}
.cell.pending .main::before,.key.pending::before{content:"?\\a0"}
.cell.late .main::after{content:" late";font-size:.8rem;font-weight:400}
.legend{flex:none;margin:.3rem 0 0;font-size:.8rem;color:#3b434b;display:flex;gap:.5rem;flex-wrap:wrap}
.key{padding:0 .5rem;border-radius:.25rem}.key.icpc:not(.first){padding:0}
#empty{color:#3b434b;margin-top:1rem}
`;

/** The colours' key; the script shows the keys of the board's rule (`icpc` or `scored`). */
const LEGEND = [
  '<p class="legend"><span class="key solved">solved</span><span class="key first icpc">first to solve</span>',
  '<span class="key partial scored">partly scored</span><span class="key tried">tried</span>',
  '<span class="key pending">pending</span><span class="key icpc">tries, then the minute of the solve</span></p>',
].join("");

/** A CSP source for an inline element's exact text. */
const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The page's policy: its own script and style (by hash, so nothing injected runs or styles), requests to its
 * own origin only (the JSON board and the record stream), no images, no base, no forms, no framing.
 */
export const SCOREBOARD_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const SCOREBOARD_PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": SCOREBOARD_PAGE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/** The page for a set (its title shown as text) and its board as the caller sees it now. */
export function scoreboardPage(title: string, board: ScoreboardView): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scoreboard: ${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="meta"><span id="rule"></span><span id="updated"></span><span id="state" class="state">connecting</span></p>
</header>
<div id="banner" class="banner" hidden></div>
<main id="board">
<table>
<colgroup id="columns"></colgroup>
<thead id="head"></thead>
<tbody id="rows"></tbody>
</table>
<p id="empty" hidden>No submissions yet.</p>
</main>
${LEGEND}
<script type="application/json" id="board-data">${scriptJson(board)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
