import { scoreboard } from "../scoreboard/scoreboard.service";
import type { ScoreboardView } from "../scoreboard/scoreboard.schemas";
import type * as S from "./ccs.schemas";
import { ccsRelTime, ccsTime } from "./ccs.schemas";
import { type CcsContext, scoresPoints, type Snapshot, windowOf } from "./ccs-contest";

/**
 * The Contest API's scoreboard and awards, made from our own ICPC (or IOI: points) board (scoreboard.service.ts) as the caller
 * may see it — the public view is the board `?view=public` shows, frozen for everyone — so the two can never
 * disagree: rank, solved and penalty per row, and per problem the judged and pending attempts, the solve
 * minute and the first to solve. Every team is a row of the board, with a submission or not (the one rule of
 * board-people.ts); a team the board has not met yet (it joined between the two reads) gets a row of nothing
 * solved, ranked with the board's rows that solved nothing and have no penalty (after all of them if none).
 */
export async function boardOf(ctx: CcsContext): Promise<ScoreboardView> {
  return (await scoreboard(ctx.em, ctx.store, ctx.access, ctx.set, { asPublic: ctx.view === "public" })).view();
}

export function scoreboardOf(ctx: CcsContext, snapshot: Snapshot, board: ScoreboardView): S.CcsScoreboardView {
  const { start } = windowOf(ctx.set)!;
  const problemId = new Map(snapshot.problems.map((p) => [p.uuid, p.id]));
  const points = scoresPoints(ctx.set);
  const minute = (when: string | null) =>
    when ? Math.max(0, Math.floor((Date.parse(when) - start.getTime()) / 60_000)) : 0;
  const rows: S.CcsScoreboardView["rows"] = board.rows.map((row) => {
    const cells = new Map(row.cells.map((cell) => [cell.problemId, cell]));
    const solvedAt = row.cells.filter((cell) => cell.solvedMinute !== null).map((cell) => cell.solvedMinute!);
    return {
      rank: row.rank,
      team_id: row.userId,
      score: points
        ? { score: row.totalScore }
        : {
            num_solved: row.solved,
            total_time: row.penalty,
            ...(row.solved > 0 ? { time: Math.max(...solvedAt) } : {}),
          },
      problems: snapshot.problems.map((problem) => {
        const cell = cells.get(problem.uuid);
        const counts = {
          problem_id: problemId.get(problem.uuid)!,
          num_judged: cell?.submissions ?? 0,
          num_pending: cell?.pending ?? 0,
        };
        // IOI: the subtasks' best, summed; its time is the minute of the record that shows it.
        if (points) {
          const score = cell?.score ?? 0;
          return { ...counts, score, ...(score > 0 ? { time: minute(cell!.submittedAt) } : {}) };
        }
        const solved = cell?.solvedMinute !== null && cell?.solvedMinute !== undefined;
        return {
          ...counts,
          solved,
          // No first_to_solve: 2023-06's published schema (check-api.sh) refuses it; the awards say who was first.
          ...(solved ? { time: cell!.solvedMinute! } : {}),
        };
      }),
    };
  });
  const ranked = new Set(board.rows.map((row) => row.userId));
  const idle = board.rows.find((row) => (points ? row.totalScore === 0 : row.solved === 0 && row.penalty === 0));
  const idleRank = idle ? idle.rank : board.rows.length + 1;
  for (const team of snapshot.teams) {
    if (ranked.has(team.id)) continue;
    const nothing = { num_judged: 0, num_pending: 0, ...(points ? { score: 0 } : { solved: false }) };
    rows.push({
      rank: idleRank,
      team_id: team.id,
      score: points ? { score: 0 } : { num_solved: 0, total_time: 0 },
      problems: snapshot.problems.map(
        (problem) => ({ problem_id: problem.id, ...nothing }) as (typeof rows)[number]["problems"][number],
      ),
    });
  }
  return {
    time: ccsTime(ctx.now),
    contest_time: ccsRelTime(ctx.now.getTime() - start.getTime()),
    state: snapshot.state,
    rows,
  };
}

/**
 * The two awards the board decides: the winner (the first-ranked rows, when they solved anything) and the
 * first to solve each problem. Others (medals, group winners) are not kept: not served.
 */
export function awardsOf(snapshot: Snapshot, board: ScoreboardView): S.CcsAwardView[] {
  const scored = (row: ScoreboardView["rows"][number]) => (board.rule === "ioi" ? row.totalScore > 0 : row.solved > 0);
  const winners = board.rows.filter((row) => row.rank === 1 && scored(row)).map((row) => row.userId);
  const awards: S.CcsAwardView[] = [{ id: "winner", citation: "Contest winner", team_ids: winners }];
  // First to solve is ICPC's: a score contest has no "solved".
  if (board.rule === "ioi") return awards;
  for (const problem of snapshot.problems) {
    const first = board.rows
      .filter((row) => row.cells.some((cell) => cell.problemId === problem.uuid && cell.firstToSolve))
      .map((row) => row.userId);
    awards.push({
      id: `first-to-solve-${problem.id}`,
      citation: `First to solve problem ${problem.label}`,
      team_ids: first,
    });
  }
  return awards;
}
