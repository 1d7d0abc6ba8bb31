import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { DomainAccess } from "../identity/access";
import { uuidArray } from "../../db/addressing";
import { isoTime } from "../../http/schemas";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { managesProblemSets, visibleProblems } from "../problem-sets/problem-sets.service";
import type { ScoreboardView } from "./scoreboard.schemas";
import { JUDGED_ROWS_SQL } from "./scoreboard.sql";

interface JudgedRow {
  id: string;
  committer_id: string;
  username: string;
  problem_id: string;
  score: number;
  state: string;
  late: boolean;
  created_at: Date;
}

type Cell = ScoreboardView["rows"][number]["cells"][number];

/**
 * The set's scoreboard: per user and problem, the best score (or the last one, per the set's
 * `scoreboardRule`) among judged records submitted through the set, and the totals. Ranked by total,
 * then by problems accepted, then by who reached their total first. Hidden from non-managers when
 * the set says so.
 */
export async function scoreboard(em: EntityManager, access: DomainAccess, set: ProblemSet): Promise<ScoreboardView> {
  if (set.scoreboardHidden && !managesProblemSets(access)) {
    throw new BizError("ScoreboardHiddenBadRequestError", "the scoreboard of this problem set is hidden");
  }
  const problems = await visibleProblems(em, access, set);
  const rows =
    problems.length === 0
      ? []
      : await em.execute<JudgedRow[]>(JUDGED_ROWS_SQL, [set.id, uuidArray(problems.map((p) => p.id))]);
  const byUser = new Map<string, { username: string; cells: Map<string, Cell & { at: Date }> }>();
  for (const row of rows) {
    const user = byUser.get(row.committer_id) ?? { username: row.username, cells: new Map() };
    byUser.set(row.committer_id, user);
    const current = user.cells.get(row.problem_id);
    const submissions = (current?.submissions ?? 0) + 1;
    const takes = !current || set.scoreboardRule === "last" || row.score > current.score;
    const at = new Date(row.created_at);
    user.cells.set(
      row.problem_id,
      takes
        ? {
            problemId: row.problem_id,
            score: row.score,
            state: row.state,
            recordId: row.id,
            late: row.late,
            submittedAt: isoTime(at),
            submissions,
            at,
          }
        : { ...current!, submissions },
    );
  }
  const ranked = [...byUser.entries()]
    .map(([userId, { username, cells }]) => {
      const counted = [...cells.values()];
      return {
        userId,
        username,
        totalScore: counted.reduce((sum, c) => sum + c.score, 0),
        accepted: counted.filter((c) => c.state === "accepted").length,
        reachedAt: Math.max(0, ...counted.map((c) => c.at.getTime())),
        cells: problems.flatMap((p) => {
          const cell = cells.get(p.id);
          if (!cell) return [];
          const { at: _at, ...shown } = cell;
          return [shown];
        }),
      };
    })
    .sort(
      (a, b) =>
        b.totalScore - a.totalScore ||
        b.accepted - a.accepted ||
        a.reachedAt - b.reachedAt ||
        a.username.localeCompare(b.username),
    );
  let rank = 0;
  return {
    problemSetId: set.id,
    rule: set.scoreboardRule as "best" | "last",
    problems: problems.map((p) => ({ id: p.id, url: p.url, title: p.title })),
    rows: ranked.map(({ reachedAt: _r, ...row }, i) => {
      const prev = ranked[i - 1];
      if (!prev || prev.totalScore !== row.totalScore || prev.accepted !== row.accepted) rank = i + 1;
      return { rank, ...row };
    }),
  };
}
