import { createHash } from "node:crypto";
import { PAGE_SCRIPT } from "./scoreboard-page-script";
import type { ScoreboardView } from "./scoreboard.schemas";
import { escapeHtml, scriptJson } from "../../core/page-text";

/**
 * A set's scoreboard as one self-contained page for a projector (docs/contests.md): no build step, no outside
 * asset. The board rides in the page as JSON (every `<` escaped, so no username can close the script) and the
 * page's script draws it as text, then follows the set's record stream to redraw it live
 * (scoreboard-page-script.ts). Colours tell solved, first to solve, tried and pending apart; a banner says when
 * the board is frozen or sealed.
 */

// Sized to be read from the back of a lecture hall; no inline style attributes (the policy would refuse them).
const STYLE = `
body{font:20px/1.35 system-ui,sans-serif;margin:0;padding:1.1rem 1.5rem;color:#1b1f24;background:#fff}
header{display:flex;align-items:baseline;flex-wrap:wrap;gap:.4rem 1.2rem;margin-bottom:.5rem}
h1{font-size:1.8rem;margin:0}
.meta{color:#57606a;font-size:.85rem;display:flex;gap:1rem;align-items:baseline}
.state::before{content:"";display:inline-block;width:.65em;height:.65em;border-radius:50%;margin-right:.35em;
  background:#8c959f}
.state.live::before{background:#1a7f37}.state.stale::before{background:#d29922}.state.off::before{background:#cf222e}
.banner{padding:.5rem .9rem;margin:.3rem 0 .7rem;border-radius:.35rem;font-weight:600}
.banner.frozen{background:#ddf4ff;color:#0a3069;border:1px solid #54aeff}
.banner.sealed{background:#fbefff;color:#512a97;border:1px solid #c297ff}
table{border-collapse:collapse;width:100%}
th,td{padding:.3rem .45rem;border-bottom:1px solid #d0d7de;text-align:center}
th{position:sticky;top:0;background:#f6f8fa;font-size:.8rem;vertical-align:bottom;z-index:1}
th.problem .letter{display:block;font-size:1.15rem}
th.problem .title{display:block;font-weight:400;color:#57606a;max-width:9rem;margin:auto;
  overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td.rank{font-weight:700;width:2.5rem}
td.name,th.name{text-align:left}
td.name{font-weight:600;max-width:20rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td.num{font-variant-numeric:tabular-nums}
td.total{font-weight:700}
tbody tr:nth-child(even){background:#f6f8fa}
td.cell{min-width:4.8rem;font-variant-numeric:tabular-nums;border-left:2px solid #fff;border-right:2px solid #fff}
.cell .main{font-weight:600}
.cell .sub{font-size:.68rem;opacity:.85}
.solved{background:#aceebb}.first{background:#1a7f37;color:#fff}.partial{background:#fff1b8}
.tried{background:#ffcecb}.pending{background:#c6dcff}
.cell.late .main::after{content:" late";font-size:.6rem;font-weight:400}
.legend{margin:.8rem 0 0;font-size:.8rem;color:#57606a;display:flex;gap:.5rem;flex-wrap:wrap}
.key{padding:.1rem .5rem;border-radius:.25rem;color:#1b1f24}.key.first{color:#fff}
#empty{color:#57606a;margin-top:1rem}
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
<table>
<thead id="head"></thead>
<tbody id="rows"></tbody>
</table>
<p id="empty" hidden>No submissions yet.</p>
${LEGEND}
<script type="application/json" id="board-data">${scriptJson(board)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
