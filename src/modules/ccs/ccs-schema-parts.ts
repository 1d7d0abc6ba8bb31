import { t } from "elysia";
import { CCS_ID, CCS_POS_RELTIME, CCS_RELTIME, CCS_TIME } from "./ccs-formats";

/** The parts ccs.schemas.ts builds the Contest API's objects from: its value types, and a scoreboard's row. */

export const Time = t.String({ pattern: CCS_TIME });
export const RelTime = t.String({ pattern: CCS_RELTIME });
export const PosRelTime = t.String({ pattern: CCS_POS_RELTIME });
export const Id = t.String({ pattern: CCS_ID });
export const Count = t.Integer({ minimum: 0 });
export const Minutes = t.Integer({ minimum: 0, description: "whole minutes of contest time" });
export const Seconds = t.Number({ minimum: 0, description: "seconds, a multiple of 0.001" });
export const closed = (title: string) => ({ title, additionalProperties: false }) as const;

/** A row scores pass-fail (solved, penalty minutes) or by points; a cell's `time` is the minute of solving. */
export function scoreboardRow() {
  const cell = { problem_id: Id, num_judged: Count, num_pending: Count, time: t.Optional(Minutes) };
  return t.Object(
    {
      rank: t.Integer({ minimum: 1, description: "shared on ties" }),
      team_id: Id,
      score: t.Union([
        t.Object({ num_solved: Count, total_time: Minutes, time: t.Optional(Minutes) }, closed("CcsPassFailScore")),
        t.Object({ score: t.Number(), time: t.Optional(Minutes) }, closed("CcsPointsScore")),
      ]),
      problems: t.Array(
        t.Union([
          // No first_to_solve: later drafts add it, but 2023-06's published schema refuses it (the spec's own
          // check-api.sh); the `first-to-solve-…` awards carry it.
          t.Object({ ...cell, solved: t.Boolean() }, closed("CcsPassFailCell")),
          t.Object({ ...cell, score: t.Number() }, closed("CcsPointsCell")),
        ]),
      ),
    },
    closed("CcsScoreboardRow"),
  );
}
