import {
  type BoardCell,
  type BoardRecord,
  type BoardSettings,
  type Viewer,
  cellOf,
  frozen,
  resultShown,
  sealed,
} from "./board-rules";

/**
 * The whole board (docs/contests.md "Ranking"): each user's cells in the set's problem order and their totals,
 * ranked by the rule — ICPC by problems solved, then the penalty; the others by total score — with ties
 * sharing a rank (listed by name within it). Homework's best and last keep their old order: total, then
 * problems accepted, then who reached their total first. Every participant has a row (board-people.ts): one
 * without a record has nothing, tied with the rows that scored nothing, listed after them within the tie
 * (homework: it reached nothing). Rows are made per user and ranked apart, so a board for one viewer can be
 * another's with only their own row made again (scoreboard.service.ts).
 */

export interface BoardRow {
  rank: number;
  userId: string;
  username: string;
  totalScore: number;
  accepted: number;
  solved: number;
  penalty: number;
  total: number;
  cells: BoardCell[];
}

export interface UserRow extends BoardRow {
  reachedAt: number;
}

export interface Board {
  frozen: boolean;
  sealed: boolean;
  rows: BoardRow[];
}

/** Each user's records by problem, in the records' order (oldest first), for the problems on the board. */
export type Grouped = Map<string, { username: string; byProblem: Map<string, BoardRecord[]> }>;

export function groupRecords(records: readonly BoardRecord[], problems: readonly { id: string }[]): Grouped {
  const onBoard = new Set(problems.map((p) => p.id));
  const byUser: Grouped = new Map();
  for (const record of records) {
    if (!onBoard.has(record.problemId)) continue;
    let user = byUser.get(record.userId);
    if (!user) {
      user = { username: record.username, byProblem: new Map() };
      byUser.set(record.userId, user);
    }
    const list = user.byProblem.get(record.problemId);
    if (list) list.push(record);
    else user.byProblem.set(record.problemId, [record]);
  }
  return byUser;
}

/** The board's people only (board-people.ts), each with a row: records of anyone else (staff) do not count. */
export function forPeople(grouped: Grouped, people: ReadonlyMap<string, string>): Grouped {
  const kept: Grouped = new Map();
  for (const [userId, username] of people) kept.set(userId, grouped.get(userId) ?? { username, byProblem: new Map() });
  return kept;
}

/** One user's row, unranked: their cells as `shown` lets the viewer see them. */
export function userRow(
  userId: string,
  user: { username: string; byProblem: Map<string, BoardRecord[]> },
  problems: readonly { id: string }[],
  settings: BoardSettings,
  shown: (r: BoardRecord) => boolean,
): UserRow {
  const cells: BoardCell[] = [];
  for (const problem of problems) {
    const list = user.byProblem.get(problem.id);
    if (list) cells.push(cellOf(list, settings, shown));
  }
  const accepted = cells.filter((c) => c.state === "accepted").length;
  const solved = settings.rule === "icpc" ? cells.filter((c) => c.penaltyMinutes !== null).length : accepted;
  const totalScore = Math.round(cells.reduce((sum, c) => sum + c.score, 0) * 100) / 100;
  return {
    rank: 0,
    userId,
    username: user.username,
    totalScore,
    accepted,
    solved,
    penalty: cells.reduce((sum, c) => sum + (c.penaltyMinutes ?? 0), 0),
    total: settings.rule === "icpc" ? solved : totalScore,
    // A row showing no result reached nothing yet: after those that did, within a tie.
    reachedAt: Math.max(0, ...cells.map((c) => c.submittedAt?.getTime() ?? 0)) || Number.MAX_SAFE_INTEGER,
    cells,
  };
}

/** Every user's row as the viewer sees it, unranked. */
export function userRows(
  grouped: Grouped,
  problems: readonly { id: string }[],
  settings: BoardSettings,
  viewer: Viewer,
) {
  const shown = (r: BoardRecord) => resultShown(r, settings, viewer);
  return [...grouped].map(([userId, user]) => userRow(userId, user, problems, settings, shown));
}

/** The rows ranked, first solves marked (on copies of the cells: the rows given may be a cached board's). */
export function rankRows(rows: readonly UserRow[], settings: BoardSettings): BoardRow[] {
  const first = firstSolves(rows);
  const homework = settings.rule === "best" || settings.rule === "last";
  const key = (row: UserRow) =>
    settings.rule === "icpc"
      ? [-row.solved, row.penalty]
      : homework
        ? [-row.totalScore, -row.accepted]
        : [-row.totalScore];
  const compare = (a: number[], b: number[]) => a.findIndex((v, i) => v !== b[i]);
  const sorted = [...rows].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    const at = compare(ka, kb);
    if (at >= 0) return ka[at] - kb[at];
    return (homework ? a.reachedAt - b.reachedAt : 0) || a.username.localeCompare(b.username);
  });
  const ranked: BoardRow[] = [];
  for (const [i, { reachedAt: _, ...row }] of sorted.entries()) {
    const previous = sorted[i - 1];
    const rank = previous && compare(key(previous), key(sorted[i])) < 0 ? ranked[i - 1].rank : i + 1;
    const cells = row.cells.map((cell) => {
      const isFirst = cell.penaltyMinutes !== null && cell.submittedAt?.getTime() === first.get(cell.problemId);
      return isFirst === cell.firstToSolve ? cell : { ...cell, firstToSolve: isFirst };
    });
    ranked.push({ ...row, rank, cells });
  }
  return ranked;
}

/** A board made whole (tests/unit/board-rules.test.ts); `people`: the board's people, else whoever has a record. */
export function rankBoard(
  records: readonly BoardRecord[],
  problems: readonly { id: string }[],
  settings: BoardSettings,
  viewer: Viewer,
  people?: ReadonlyMap<string, string>,
): Board {
  const grouped = groupRecords(records, problems);
  const rows = userRows(people ? forPeople(grouped, people) : grouped, problems, settings, viewer);
  return {
    frozen: frozen(settings, viewer) && !viewer.manages,
    sealed: sealed(settings, viewer),
    rows: rankRows(rows, settings),
  };
}

/** The first accepted submission of each problem (ICPC's first to solve; ties at one instant all marked). */
function firstSolves(rows: readonly UserRow[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const row of rows)
    for (const cell of row.cells)
      if (cell.penaltyMinutes !== null && cell.submittedAt) {
        const at = cell.submittedAt.getTime();
        first.set(cell.problemId, Math.min(first.get(cell.problemId) ?? at, at));
      }
  return first;
}
