import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okJson } from "../../http/respond";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { findProblemSet, toProblemSetView } from "../problem-sets/problem-sets.service";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { scoreboard } from "./scoreboard.service";
import { gradeCsv } from "./grade-export.service";
import { SCOREBOARD_PAGE_HEADERS, scoreboardPage } from "./scoreboard-page";
import { GradesQuery, ScoreboardQuery, ScoreboardResp } from "./scoreboard.schemas";
import { unfreeze } from "./unfreeze.service";
import { finalize } from "./finalize.service";
import { ProblemSetResp } from "../problem-sets/problem-sets.schemas";

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

const HTML_DOC = {
  200: {
    description: "a self-contained page (inline script and style, allowed by hash) that redraws itself live",
    content: { "text/html": { schema: { type: "string" } } },
  },
} as const;

/**
 * A problem set's scoreboard (extension), computed from its judged records on every read; also as CSV grades,
 * and as a page for a projector.
 */
export function scoreboardRoutes(deps: AppDeps) {
  return new Elysia({ name: "scoreboard-routes", prefix: "/domains/:domain", detail: { tags: ["problem set"] } })
    .use(authPlugin(deps))
    .get(
      "/problem_sets/:problemSet/scoreboard",
      async ({ em, access, params, query, set: response }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        const board = await scoreboard(em, deps.store, access, set, { asPublic: query.view === "public" });
        // Written as made (scoreboard-view.ts): the schema stays the documentation.
        return okJson(response, board.json);
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        query: ScoreboardQuery,
        response: ScoreboardResp,
        detail: {
          operationId: "v1_get_problem_set_scoreboard",
          summary: "The set's board by its rule (best, last, icpc, ioi, oi), frozen or sealed as the caller may see it",
        },
      },
    )
    .get(
      "/problem_sets/:problemSet/scoreboard.csv",
      async ({ em, access, params, query }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return csvResponse(set, await gradeCsv(em, deps.store, access, set, { staffRows: query.staff }));
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        query: GradesQuery,
        detail: {
          operationId: "v1_export_problem_set_grades",
          summary:
            "The scoreboard as CSV grades: one row per student, per problem score and late flag, total (extension)",
          responses: CSV_DOC,
        },
      },
    )
    .get(
      "/problem_sets/:problemSet/scoreboard.html",
      async ({ em, access, params, query }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        const board = await scoreboard(em, deps.store, access, set, { asPublic: query.view === "public" });
        return new Response(scoreboardPage(set.title, board.view()), { headers: SCOREBOARD_PAGE_HEADERS });
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        query: ScoreboardQuery,
        detail: {
          operationId: "v1_get_problem_set_scoreboard_page",
          summary: "The scoreboard as a page for a projector, updated live from the set's record stream (extension)",
          responses: HTML_DOC,
        },
      },
    )
    .post(
      "/problem_sets/:problemSet/scoreboard/unfreeze",
      async ({ em, access, params }) =>
        ok(toProblemSetView(await unfreeze(em, access, await findProblemSet(em, access, params.problemSet)))),
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        response: ProblemSetResp,
        detail: {
          operationId: "v1_unfreeze_problem_set_scoreboard",
          summary: "Unfreeze the board (and publish an OI set's results): live for everyone from now (extension)",
        },
      },
    )
    .post(
      "/problem_sets/:problemSet/scoreboard/finalize",
      async ({ em, access, params }) =>
        ok(toProblemSetView(await finalize(em, access, await findProblemSet(em, access, params.problemSet)))),
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        response: ProblemSetResp,
        detail: {
          operationId: "v1_finalize_problem_set_scoreboard",
          summary:
            "Declare the results final after the end, the board still frozen if it is: the resolver's cue (extension)",
        },
      },
    );
}
