import { t } from "elysia";
import { DateTime, Envelope, Uuid, OutInt } from "../../http/schemas";

const ScoreboardCell = t.Object(
  {
    problemId: Uuid,
    score: OutInt(),
    state: t.String(),
    recordId: Uuid,
    late: t.Boolean(),
    submittedAt: DateTime,
    submissions: OutInt({ description: "judged submissions to this problem through the set" }),
  },
  { title: "ScoreboardCell" },
);

export const Scoreboard = t.Object(
  {
    problemSetId: Uuid,
    rule: t.UnionEnum(["best", "last"]),
    problems: t.Array(t.Object({ id: Uuid, url: t.String(), title: t.String() })),
    rows: t.Array(
      t.Object({
        rank: OutInt(),
        userId: Uuid,
        username: t.String(),
        totalScore: OutInt(),
        accepted: OutInt(),
        cells: t.Array(ScoreboardCell, {
          description: "the problems with a judged record, in the set's order (`problemId` says which)",
        }),
      }),
    ),
  },
  { title: "Scoreboard" },
);
export type ScoreboardView = typeof Scoreboard.static;
export const ScoreboardResp = Envelope(Scoreboard, "ScoreboardResp");
