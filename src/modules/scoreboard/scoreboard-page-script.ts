/**
 * The scoreboard page's own script (scoreboard-page.ts serves it inline, allowed by its hash). It draws the board
 * embedded in the page, then keeps it current: each `record` event of the set's record stream asks for the JSON
 * board again, at most one request per DEBOUNCE_MS however many records change at once, and the board is redrawn.
 * A slow poll stays on beside the stream: the board also changes with time alone (a freeze begins, an OI set
 * ends), and a viewer whose role may not list others' records hears only of their own.
 *
 * A board longer than the screen turns its pages (a projector has nobody to scroll it): every BOARD_PAGE_MS the
 * next screenful of whole rows, then the top again; a viewer who scrolls or presses a key holds it for BOARD_HOLD_MS.
 *
 * Everything is written with textContent and DOM calls, never as markup: usernames and titles are anyone's text.
 * Plain ASCII (one escape, doubled for this template literal), so the text hashed is the text the browser reads.
 */

/** Long enough to find one's team on a page (14 rows at 1080p): 40 teams take three pages, 36 s in all. */
export const BOARD_PAGE_MS = 12_000;
/** How long a viewer's own scrolling holds the page still: a laptop, not the projector. */
export const BOARD_HOLD_MS = 120_000;

export const PAGE_SCRIPT = `
"use strict";
const DEBOUNCE_MS = 500;
const POLL_MS = 60000;
const PAGE_MS = ${BOARD_PAGE_MS};
const HOLD_MS = ${BOARD_HOLD_MS};
const RULES = { icpc: "ICPC", ioi: "IOI", oi: "OI", best: "best score", last: "last score" };
const initial = JSON.parse(document.getElementById("board-data").textContent);
// The same view of the board as the page's (?view=public: as participants see it, for staff's projector).
const boardUrl = new URL("scoreboard" + location.search, location.href);
const eventsUrl = new URL("../../records/events", location.href);
eventsUrl.searchParams.set("problemSet", initial.problemSetId);
const state = document.getElementById("state");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
const number = (n) => String(Math.round(n * 100) / 100);
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
const clock = (date) => date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
function letter(index) {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
/** The stream's state, shown again once a failed refresh is followed by a good one. */
let streamState = ["connecting", "stale"];
function show(text, kind) {
  state.textContent = text;
  state.className = "state " + kind;
}
function showStream(text, kind) {
  streamState = [text, kind];
  show(text, kind);
}

function banner(board) {
  const node = document.getElementById("banner");
  node.hidden = !board.frozen && !board.sealed;
  if (board.sealed) {
    node.className = "banner sealed";
    node.textContent = "Results are sealed until the end (OI): every submission shows as pending.";
  } else if (board.frozen) {
    const at = board.freezeAt ? new Date(board.freezeAt) : null;
    const when = at ? at.toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "the freeze";
    node.className = "banner frozen";
    node.textContent = "The board is frozen since " + when + ": results submitted after it show as pending.";
    if (at) node.dataset.freezeAt = board.freezeAt;
  }
}

/** One cell's colour: solved (first to solve darker), partly scored, tried, or waiting for a result. */
function kindOf(cell, icpc) {
  if (icpc) {
    if (cell.penaltyMinutes !== null) return cell.firstToSolve ? "solved first" : "solved";
    return cell.pending > 0 ? "pending" : "tried";
  }
  if (cell.state === "accepted") return "solved";
  if (cell.state === "pending") return "pending";
  return cell.score > 0 ? "partial" : "tried";
}

function cellOf(cell, icpc) {
  const td = el("td", "cell");
  if (!cell || cell.attempts === 0) return td;
  td.className = "cell " + kindOf(cell, icpc);
  const notes = [];
  if (icpc) {
    td.append(el("div", "main", plural(cell.attempts, "try", "tries")));
    // The minute of the solve, as ICPC boards show it (the penalty is the row's).
    if (cell.solvedMinute !== null) notes.push(cell.solvedMinute + " min");
  } else {
    // A pending score is its mark alone (the style's "?").
    td.append(el("div", "main", cell.state === "pending" ? "" : number(cell.score)));
    if (cell.state !== "pending" && cell.rawScore !== cell.score) notes.push("raw " + number(cell.rawScore));
    if (cell.subtasks && cell.subtasks.length > 1) notes.push(cell.subtasks.map(number).join(" + "));
  }
  if (cell.pending > 0) notes.push(cell.pending + " pending");
  if (notes.length > 0) td.append(el("div", "sub", notes.join(" \\u00b7 ")));
  if (cell.firstToSolve) td.title = "first to solve";
  if (cell.late) td.classList.add("late");
  return td;
}

function rowOf(board, row, icpc) {
  const tr = el("tr");
  tr.dataset.user = row.userId;
  tr.append(el("td", "rank", row.rank), el("td", "name", row.username));
  if (icpc) tr.append(el("td", "num solved-count", row.solved), el("td", "num penalty", row.penalty));
  const cells = new Map(row.cells.map((cell) => [cell.problemId, cell]));
  for (const problem of board.problems) tr.append(cellOf(cells.get(problem.id), icpc));
  if (!icpc) tr.append(el("td", "num total", number(row.total)));
  return tr;
}

function render(board) {
  const icpc = board.rule === "icpc";
  document.getElementById("rule").textContent = RULES[board.rule] || board.rule;
  banner(board);
  const head = el("tr");
  head.append(el("th", "rank", "#"), el("th", "name", "Name"));
  if (icpc) head.append(el("th", "num", "Solved"), el("th", "num", "Penalty"));
  // Fixed columns (the style's widths; the problems share what is left), so a redraw never moves them.
  const columns = [el("col", "rank"), el("col", "name")];
  if (icpc) columns.push(el("col", "num"), el("col", "num"));
  columns.push(...board.problems.map(() => el("col", "problem")));
  if (!icpc) columns.push(el("col", "num"));
  document.getElementById("columns").replaceChildren(...columns);
  board.problems.forEach((problem, i) => {
    const th = el("th", "problem");
    th.title = problem.title;
    th.append(el("span", "letter", letter(i)), el("span", "title", problem.title));
    head.append(th);
  });
  if (!icpc) head.append(el("th", "num", "Total"));
  document.getElementById("head").replaceChildren(head);
  document.getElementById("rows").replaceChildren(...board.rows.map((row) => rowOf(board, row, icpc)));
  document.getElementById("empty").hidden = board.rows.length > 0;
  for (const key of document.querySelectorAll(".key.icpc")) key.hidden = !icpc;
  for (const key of document.querySelectorAll(".key.scored")) key.hidden = icpc;
  fit();
}

/** The first row of the page shown, how many whole rows a page holds, and until when a viewer holds it. */
let pageStart = 0;
let perPage = 1;
let heldUntil = 0;
const box = document.getElementById("board");
const tbody = document.getElementById("rows");

/**
 * Rows as tall as the tallest needs, then stretched so that a whole number of them fills the board's box: no row
 * is cut at the bottom edge, where half a row would be read as someone else's.
 */
function fit() {
  tbody.style.removeProperty("--row");
  const rows = tbody.rows;
  if (rows.length === 0) return;
  let tallest = 0;
  for (const row of rows) tallest = Math.max(tallest, row.getBoundingClientRect().height);
  const room = box.clientHeight - document.getElementById("head").getBoundingClientRect().height;
  perPage = Math.max(1, Math.floor(room / tallest));
  tbody.style.setProperty("--row", room / perPage + "px");
  if (pageStart >= rows.length) pageStart = 0;
  // A viewer scrolling by hand keeps their place through a redraw.
  if (Date.now() >= heldUntil) showPage();
}
/** Scrolls the board's box so that the page's first row sits just under the (sticky) header. */
function showPage() {
  const row = tbody.rows[pageStart];
  const head = document.getElementById("head").getBoundingClientRect().height;
  if (row) box.scrollTop += row.getBoundingClientRect().top - box.getBoundingClientRect().top - head;
}
function turn() {
  if (Date.now() < heldUntil || tbody.rows.length <= perPage) return;
  pageStart = pageStart + perPage < tbody.rows.length ? pageStart + perPage : 0;
  showPage();
}

let timer = null;
let loading = false;
let again = false;
let streamOpen = false;
function soon() {
  if (timer === null) timer = setTimeout(refresh, DEBOUNCE_MS);
}
async function refresh() {
  timer = null;
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    const response = await fetch(boardUrl, { credentials: "same-origin", cache: "no-store" });
    const body = await response.json().catch(() => null);
    if (body && body.errorCode === "Success" && body.data) {
      render(body.data);
      document.getElementById("updated").textContent = "updated " + clock(new Date());
      show(streamState[0], streamState[1]);
    } else {
      const why = (body && (body.errorMsg || body.detail)) || "HTTP " + response.status;
      show("not refreshed: " + why, "off");
    }
  } catch {
    show("not refreshed: the server is unreachable", "off");
  } finally {
    loading = false;
    if (again) {
      again = false;
      soon();
    }
  }
}

function listen() {
  const stream = new EventSource(eventsUrl);
  stream.addEventListener("record", soon);
  stream.addEventListener("reset", soon);
  stream.addEventListener("open", () => {
    // After a reconnection the stream resumes from its last event id; a fresh read covers any gap anyway.
    if (streamOpen) soon();
    streamOpen = true;
    showStream("live", "live");
  });
  stream.addEventListener("error", () => {
    if (stream.readyState !== EventSource.CLOSED) return showStream("reconnecting", "stale");
    // Refused outright (the user's streams all taken, a proxy's error page while the server restarts): the
    // browser gives up, so the page tries again later and meanwhile polls.
    showStream("live updates off: refreshed every minute", "off");
    setTimeout(listen, POLL_MS);
  });
}

render(initial);
document.getElementById("updated").textContent = "updated " + clock(new Date());
listen();
setInterval(soon, POLL_MS);
setInterval(turn, PAGE_MS);
addEventListener("resize", fit);
for (const type of ["wheel", "keydown", "pointerdown", "touchstart"])
  addEventListener(type, () => (heldUntil = Date.now() + HOLD_MS), { passive: true });
`;
