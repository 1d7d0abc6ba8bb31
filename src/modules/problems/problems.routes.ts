import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okJson, okPage } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import { DomainParams } from "../domains/domains.schemas";
import * as problems from "./problems.service";
import { withLatestRecords } from "../records/records.service";
import {
  ProblemClone,
  ProblemCreate,
  ProblemDetailResp,
  ProblemDetailWithLatestRecordResp,
  ProblemEdit,
  ProblemGroupListResp,
  ProblemListQuery,
  ProblemListResp,
  ProblemParams,
  ProblemResp,
  ProblemWithLatestRecordListResp,
} from "./problems.schemas";

export function problemsRoutes(deps: AppDeps) {
  return new Elysia({ name: "problems-routes", prefix: "/domains/:domain/problems", detail: { tags: ["problem"] } })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, query }) => {
        const page = await problems.listProblems(em, access, query);
        return ok({
          count: page.count,
          results: await withLatestRecords(em, access.userId, page.results.map(problems.toProblemView)),
        });
      },
      {
        domainPermission: "problem.view",
        params: DomainParams,
        query: ProblemListQuery,
        response: ProblemWithLatestRecordListResp,
        detail: {
          operationId: "v1_list_problems",
          summary: "The domain's problems (hidden ones only with problem.viewHidden)",
        },
      },
    )
    .post(
      "",
      async ({ em, access, body }) => ok(problems.toProblemDetail(await problems.createProblem(em, access, body))),
      {
        domainPermission: "problem.create",
        params: DomainParams,
        body: ProblemCreate,
        response: ProblemDetailResp,
        detail: { operationId: "v1_create_problem", summary: "Create a problem (in a problem group of its own)" },
      },
    )
    .post(
      "/clone",
      async ({ em, access, body }) => {
        const clones = await problems.cloneProblems(em, access, body);
        return ok({ count: clones.length, results: clones.map(problems.toProblemView) });
      },
      {
        domainPermission: "problem.create",
        params: DomainParams,
        body: ProblemClone,
        response: ProblemListResp,
        detail: {
          operationId: "v1_clone_problem",
          summary: "Copy problems, with their latest config, from a domain where the caller may see them",
        },
      },
    )
    .get("/:problem", ({ access, resource, set }) => okJson(set, problems.problemPageOf(access, resource)), {
      // The problem and the caller's latest record for it come with the caller's standing, in one statement.
      domainRead: { rule: "problem.view", read: problems.problemPageRead },
      params: ProblemParams,
      response: ProblemDetailWithLatestRecordResp,
      detail: { operationId: "v1_get_problem", summary: "One problem by url or id" },
    })
    .patch(
      "/:problem",
      async ({ em, access, params, body }) =>
        ok(problems.toProblemView(await problems.updateProblem(em, access, params.problem, body))),
      {
        domainPermission: "problem.edit",
        params: ProblemParams,
        body: ProblemEdit,
        response: ProblemResp,
        detail: { operationId: "v1_update_problem", summary: "Change a problem" },
      },
    )
    .delete(
      "/:problem",
      async ({ em, access, params }) => {
        await problems.deleteProblem(em, access, params.problem);
        return ok({});
      },
      {
        domainPermission: "problem.edit",
        params: ProblemParams,
        response: EmptyResp,
        detail: {
          operationId: "v1_delete_problem",
          summary: "Delete a problem (its config versions stay for the records judged with them)",
        },
      },
    );
}

export function problemGroupsRoutes(deps: AppDeps) {
  return new Elysia({ name: "problem-groups-routes", detail: { tags: ["problem group"] } })
    .use(authPlugin(deps))
    .get("/problem_groups", async ({ em, query }) => okPage(await problems.listGroups(em, query), (g) => g), {
      auth: true,
      query: ProblemListQuery,
      response: ProblemGroupListResp,
      detail: { operationId: "v1_list_problem_groups", summary: "Every problem group" },
    });
}
