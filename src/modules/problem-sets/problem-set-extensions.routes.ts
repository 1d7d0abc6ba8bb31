import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okPage } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import { findProblemSet } from "./problem-sets.service";
import * as extensions from "./problem-set-extensions.service";
import { SetParams } from "./problem-sets.schemas";
import {
  ExtensionParams,
  ProblemSetExtensionListResp,
  ProblemSetExtensionPut,
  ProblemSetExtensionResp,
} from "./problem-set-extensions.schemas";

/** Per-student due and lock times on a set (extensions beyond Horse; docs/api.md). */
export function problemSetExtensionsRoutes(deps: AppDeps) {
  return new Elysia({
    name: "problem-set-extensions-routes",
    prefix: "/domains/:domain/problem_sets/:problemSet/extensions",
    detail: { tags: ["problem set"] },
  })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, params }) => {
        const rows = await extensions.listExtensions(em, await findProblemSet(em, access, params.problemSet));
        return okPage({ count: rows.length, results: rows }, (row) => extensions.toExtensionView(row));
      },
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        response: ProblemSetExtensionListResp,
        detail: {
          operationId: "v1_list_problem_set_extensions",
          summary: "The set's extensions (students' own due and lock times), by username",
        },
      },
    )
    .put(
      "/:user",
      async ({ em, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return ok(await extensions.putExtension(em, access, set, params.user, body));
      },
      {
        domainPermission: "problemSet.edit",
        params: ExtensionParams,
        body: ProblemSetExtensionPut,
        response: ProblemSetExtensionResp,
        detail: {
          operationId: "v1_put_problem_set_extension",
          summary:
            "Grant or replace a member's own due and lock times (null: the set's; their window must stay in order)",
        },
      },
    )
    .delete(
      "/:user",
      async ({ em, access, params }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        await extensions.revokeExtension(em, access, set, params.user);
        return ok({});
      },
      {
        domainPermission: "problemSet.edit",
        params: ExtensionParams,
        response: EmptyResp,
        detail: { operationId: "v1_delete_problem_set_extension", summary: "Take a student's extension away" },
      },
    );
}
