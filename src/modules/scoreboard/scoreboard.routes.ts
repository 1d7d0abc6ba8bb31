import { Elysia } from "elysia";
import type { AppDeps } from "../../app";
import { authPlugin } from "../../http/auth.plugin";
import { ok } from "../../http/respond";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { findProblemSet } from "../problem-sets/problem-sets.service";
import { scoreboard } from "./scoreboard.service";
import { ScoreboardResp } from "./scoreboard.schemas";

/** A problem set's scoreboard (extension), computed from its judged records on every read. */
export function scoreboardRoutes(deps: AppDeps) {
  return new Elysia({ name: "scoreboard-routes", prefix: "/domains/:domain", detail: { tags: ["problem set"] } })
    .use(authPlugin(deps))
    .get("/problem_sets/:problemSet/scoreboard", async ({ em, access, params }) =>
      ok(await scoreboard(em, access, await findProblemSet(em, access, params.problemSet))), {
      domainPermission: "problemSet.view",
      params: SetParams,
      response: ScoreboardResp,
      detail: {
        operationId: "v1_get_problem_set_scoreboard",
        summary: "Per user and problem the best (or last) score, and totals (extension)",
      },
    });
}
