import { Elysia } from "elysia";
import type { AppDeps } from "../../server/deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { findProblemSet } from "../problem-sets/problem-sets.service";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { scoreboard } from "./scoreboard.service";
import { gradeCsv } from "./grade-export.service";
import { ScoreboardResp } from "./scoreboard.schemas";

const CSV_DOC = {
  200: {
    description:
      "UTF-8 with a byte-order mark, CRLF lines: student id, real name, username, " +
      "per problem its score and a late flag, total",
    content: { "text/csv": { schema: { type: "string" } } },
  },
} as const;

/** The CSV as a download named after the set (RFC 6266: an ASCII fallback, then the UTF-8 name). */
function csvResponse(set: ProblemSet, body: string): Response {
  const name = `${set.title}.csv`;
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      "cache-control": "no-store",
    },
  });
}

/** A problem set's scoreboard (extension), computed from its judged records on every read; also as CSV grades. */
export function scoreboardRoutes(deps: AppDeps) {
  return new Elysia({ name: "scoreboard-routes", prefix: "/domains/:domain", detail: { tags: ["problem set"] } })
    .use(authPlugin(deps))
    .get(
      "/problem_sets/:problemSet/scoreboard",
      async ({ em, access, params }) =>
        ok(await scoreboard(em, access, await findProblemSet(em, access, params.problemSet))),
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        response: ScoreboardResp,
        detail: {
          operationId: "v1_get_problem_set_scoreboard",
          summary: "Per user and problem the best (or last) score, and totals (extension)",
        },
      },
    )
    .get(
      "/problem_sets/:problemSet/scoreboard.csv",
      async ({ em, access, params }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return csvResponse(set, await gradeCsv(em, access, set));
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        detail: {
          operationId: "v1_export_problem_set_grades",
          summary:
            "The scoreboard as CSV grades: one row per member, per problem score and late flag, total (extension)",
          responses: CSV_DOC,
        },
      },
    );
}
