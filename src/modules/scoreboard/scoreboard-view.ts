import { isoTime } from "../../http/schemas";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import type { Board } from "./board-rank";
import type { BoardSettings } from "./board-rules";
import type { ScoreboardView } from "./scoreboard.schemas";

/**
 * The board's answer, made field by field in the schema's order and with nothing else, and written as JSON
 * by the app (respond.ts okJson): Elysia's clean and check of ~6,000 cells against the schema was two
 * fifths of a board's CPU (bench:scoreboard). tests/http/contest-boards.test.ts checks answers against the
 * schema with every object closed.
 */
export function boardView(
  set: ProblemSet,
  problems: { id: string; url: string | null; title: string }[],
  settings: BoardSettings,
  board: Board,
): ScoreboardView {
  return {
    problemSetId: set.id,
    rule: settings.rule,
    frozen: board.frozen,
    sealed: board.sealed,
    freezeAt: isoTime(settings.freezeAt),
    penaltyMinutes: settings.penaltyMinutes,
    problems: problems.map((p) => ({ id: p.id, url: p.url ?? p.id, title: p.title })),
    rows: board.rows.map((row) => ({
      rank: row.rank,
      userId: row.userId,
      username: row.username,
      totalScore: row.totalScore,
      accepted: row.accepted,
      solved: row.solved,
      penalty: row.penalty,
      total: row.total,
      cells: row.cells.map((cell) => ({
        problemId: cell.problemId,
        score: cell.score,
        rawScore: cell.rawScore,
        state: cell.state,
        recordId: cell.recordId,
        late: cell.late,
        submittedAt: isoTime(cell.submittedAt),
        submissions: cell.submissions,
        attempts: cell.attempts,
        pending: cell.pending,
        penaltyMinutes: cell.penaltyMinutes,
        solvedMinute: cell.solvedMinute,
        firstToSolve: cell.firstToSolve,
        subtasks: cell.subtasks,
      })),
    })),
  };
}

export const boardJson = (view: ScoreboardView) => JSON.stringify(view);
