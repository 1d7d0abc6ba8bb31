import { t } from "elysia";
import { DateTime, Envelope, Uuid } from "../../http/schemas";

const ScoreboardCell = t.Object(
  {
    problemId: Uuid,
    score: t.Integer(),
    state: t.String(),
    recordId: Uuid,
    late: t.Boolean(),
    submittedAt: DateTime,
    submissions: t.Integer({ description: "judged submissions to this problem through the set" }),
  },
  { title: "ScoreboardCell" },
);

export const Scoreboard = t.Object(
  {
    problemSetId: Uuid,
    rule: t.UnionEnum(["best", "last"]),
    problems: t.Array(t.Object({ id: Uuid, url: t.String(), title: t.String() })),
    rows: t.Array(t.Object({
      rank: t.Integer(),
      userId: Uuid,
      username: t.String(),
      totalScore: t.Integer(),
      accepted: t.Integer(),
      cells: t.Array(ScoreboardCell, { description: "the problems with a judged record, in the set's order (`problemId` says which)" }),
    })),
  },
  { title: "Scoreboard" },
);
export type ScoreboardView = typeof Scoreboard.static;
export const ScoreboardResp = Envelope(Scoreboard, "ScoreboardResp");
