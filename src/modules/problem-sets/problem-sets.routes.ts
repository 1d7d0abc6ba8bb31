import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okList } from "../../http/respond";
import { EmptyResp, isoTime } from "../../http/schemas";
import { DomainParams } from "../domains/domains.schemas";
import { toProblemDetail, toProblemView } from "../problems/problems.service";
import { withLatestRecords } from "../records/records.service";
import { ProblemDetailWithLatestRecordResp, ProblemWithLatestRecordListResp } from "../problems/problems.schemas";
import * as sets from "./problem-sets.service";
import { announceRecordChange, setChange } from "../record-events/record-events.bus";
import {
  ProblemSetAddProblem,
  ProblemSetCreate,
  ProblemSetDetailResp,
  ProblemSetEdit,
  ProblemSetListQuery,
  ProblemSetListResp,
  ProblemSetResp,
  ProblemSetUpdateProblem,
  SetParams,
  SetProblemParams,
} from "./problem-sets.schemas";

export function problemSetsRoutes(deps: AppDeps) {
  // A contest's problems (and so its languages) follow the set's: its feeds hear of each change. Awaited (it never
  // fails, and waits at most the bus's batching window): a feed resumed after the answer sends a removal.
  const changed = (domainId: string, setId: string, removedProblem?: string) =>
    announceRecordChange(deps.jobs, deps.logger, domainId, setChange(setId, removedProblem));
  return new Elysia({
    name: "problem-sets-routes",
    prefix: "/domains/:domain/problem_sets",
    detail: { tags: ["problem set"] },
  })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, query }) => {
        const page = await sets.listProblemSets(em, access, query);
        return okList({ count: page.count, results: await sets.problemSetViewsFor(em, access, page.results) });
      },
      {
        domainPermission: "problemSet.view",
        params: DomainParams,
        query: ProblemSetListQuery,
        response: ProblemSetListResp,
        detail: {
          operationId: "v1_list_problem_sets",
          summary: "The domain's problem sets (hidden ones only for managers), each with the caller's own window",
        },
      },
    )
    .post(
      "",
      async ({ em, access, body }) => ok(sets.toProblemSetView(await sets.createProblemSet(em, access, body))),
      {
        domainPermission: "problemSet.create",
        params: DomainParams,
        body: ProblemSetCreate,
        response: ProblemSetResp,
        detail: {
          operationId: "v1_create_problem_set",
          summary: "Create a problem set (times: ISO 8601 or Unix seconds/milliseconds)",
        },
      },
    )
    .get(
      "/:problemSet",
      async ({ em, access, params }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        const problems = await sets.visibleProblems(em, access, set);
        const [view] = await sets.problemSetViewsFor(em, access, [set]);
        return ok({
          ...view,
          createdAt: isoTime(set.createdAt),
          updatedAt: isoTime(set.updatedAt),
          problems: await withLatestRecords(
            em,
            access.userId,
            problems.map((p) => ({
              id: p.id,
              url: p.url,
              title: p.title,
              hidden: p.hidden,
              ownerId: p.owner?.id ?? null,
            })),
            set.id,
          ),
        });
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        response: ProblemSetDetailResp,
        detail: {
          operationId: "v1_get_problem_set",
          summary: "A problem set with the caller's own window, and its problems (none before it unlocks)",
        },
      },
    )
    .patch(
      "/:problemSet",
      async ({ em, access, params, body }) => {
        const set = await sets.updateProblemSet(em, access, params.problemSet, body);
        await changed(access.domainId, set.id);
        return ok(sets.toProblemSetView(set));
      },
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        body: ProblemSetEdit,
        response: ProblemSetResp,
        detail: { operationId: "v1_update_problem_set", summary: "Change a problem set" },
      },
    )
    .delete(
      "/:problemSet",
      async ({ em, access, params }) => {
        await sets.deleteProblemSet(em, access, params.problemSet);
        return ok({});
      },
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        response: EmptyResp,
        detail: {
          operationId: "v1_delete_problem_set",
          summary: "Delete a problem set (its problems stay in the domain)",
        },
      },
    )
    .get(
      "/:problemSet/problems",
      async ({ em, access, params }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        const problems = await sets.visibleProblems(em, access, set);
        return ok({
          count: problems.length,
          results: await withLatestRecords(em, access.userId, problems.map(toProblemView), set.id, access),
        });
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        response: ProblemWithLatestRecordListResp,
        detail: {
          operationId: "v1_list_problems_in_problem_set",
          summary: "The set's problems, in order (Horse's always crashed)",
        },
      },
    )
    .post(
      "/:problemSet/problems",
      async ({ em, access, params, body }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        await sets.addProblemToSet(em, access, set, body);
        await changed(access.domainId, set.id);
        return ok(sets.toProblemSetView(set));
      },
      {
        domainPermission: "problemSet.edit",
        params: SetParams,
        body: ProblemSetAddProblem,
        response: ProblemSetResp,
        detail: {
          operationId: "v1_add_problem_in_problem_set",
          summary: "Add a problem at a position (absent: at the end)",
        },
      },
    )
    .get(
      "/:problemSet/problems/:problem",
      async ({ em, access, params }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        const [problem] = await withLatestRecords(
          em,
          access.userId,
          [toProblemDetail(await sets.findProblemInSet(em, access, set, params.problem))],
          set.id,
          access,
        );
        return ok(problem);
      },
      {
        domainPermission: "problemSet.view",
        params: SetProblemParams,
        response: ProblemDetailWithLatestRecordResp,
        detail: {
          operationId: "v1_get_problem_in_problem_set",
          summary: "A problem through its set (closed before the set unlocks)",
        },
      },
    )
    .patch(
      "/:problemSet/problems/:problem",
      async ({ em, access, params, body }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        await sets.moveProblemInSet(em, access, set, params.problem, body.position);
        await changed(access.domainId, set.id);
        return ok(sets.toProblemSetView(set));
      },
      {
        domainPermission: "problemSet.edit",
        params: SetProblemParams,
        body: ProblemSetUpdateProblem,
        response: ProblemSetResp,
        detail: {
          operationId: "v1_update_problem_in_problem_set",
          summary: "Move a problem to a position (absent: the end)",
        },
      },
    )
    .delete(
      "/:problemSet/problems/:problem",
      async ({ em, access, params }) => {
        const set = await sets.findProblemSet(em, access, params.problemSet);
        const removed = await sets.removeProblemFromSet(em, access, set, params.problem);
        await changed(access.domainId, set.id, removed);
        return ok(sets.toProblemSetView(set));
      },
      {
        domainPermission: "problemSet.edit",
        params: SetProblemParams,
        response: ProblemSetResp,
        detail: { operationId: "v1_delete_problem_in_problem_set", summary: "Take a problem out of the set" },
      },
    );
}
