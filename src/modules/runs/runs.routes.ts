import { Elysia } from "elysia";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AppDeps } from "../../http/app-deps";
import type { Logger } from "../../core/logger";
import { BizError } from "../../core/errors";
import { authPlugin } from "../identity/http/auth.plugin";
import type { DomainAccess } from "../identity/access";
import { ok } from "../../http/respond";
import { ProblemParams } from "../problems/problems.schemas";
import { findProblem } from "../problems/problems.service";
import { SetProblemParams } from "../problem-sets/problem-sets.schemas";
import { findProblemInSet, findProblemSet, submissionWindow } from "../problem-sets/problem-sets.service";
import { enqueueRunJudging } from "../judging/tasks/judge-queue";
import { announceRecordChange, runChange } from "../record-events/record-events.bus";
import { createRun, findOwnRun, viewOfRun, type RunTarget } from "./runs.service";
import { RunParams, RunResp, RunSubmit, type RunSubmitInput } from "./runs.schemas";

/**
 * Runs (extension, docs/api.md "Runs"): whoever may submit to a problem, through the same route, may run a
 * program on it; the run is committed before its task is enqueued, at the runs' priority.
 */
export function runsRoutes(deps: AppDeps) {
  const { store, config, jobs } = deps;

  async function run(em: EntityManager, log: Logger, access: DomainAccess, target: RunTarget, body: RunSubmitInput) {
    const created = await createRun(em, store, config, access, target, body);
    void announceRecordChange(jobs, log, access.domainId, runChange(created.id));
    await enqueueRunJudging(jobs, log, { recordId: created.id, domainId: access.domainId, taskId: created.taskId });
    return ok(created.view);
  }
  const form = {
    domainPermission: "problem.submit",
    body: RunSubmit,
    type: "multipart/form-data",
    response: RunResp,
  } as const;

  return new Elysia({ name: "runs-routes", prefix: "/domains/:domain", detail: { tags: ["run"] } })
    .use(authPlugin(deps))
    .post(
      "/problems/:problem/runs",
      async ({ em, log, access, params, body }) => {
        const problem = await findProblem(em, access, params.problem);
        return run(em, log, access, { problem, set: null }, body);
      },
      {
        ...form,
        params: ProblemParams,
        detail: {
          operationId: "v1_run_on_problem",
          summary:
            "Run a program on your own input or on the samples, judged like a submission but with no record " +
            "(extension); the answer is the queued run",
        },
      },
    )
    .post(
      "/problem_sets/:problemSet/problems/:problem/runs",
      async ({ em, log, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        const problem = await findProblemInSet(em, access, set, params.problem);
        await submissionWindow(em, access, set);
        if (!set.runsAllowed) throw new BizError("Error", "runs are turned off in this problem set");
        return run(em, log, access, { problem, set }, body);
      },
      {
        ...form,
        params: SetProblemParams,
        detail: {
          operationId: "v1_run_on_problem_set_problem",
          tags: ["problem set"],
          summary: "Run through a set: within its window (as a submission) and when the set allows runs (extension)",
        },
      },
    )
    .get("/runs/:run", async ({ em, access, params }) => ok(viewOfRun(await findOwnRun(em, access, params.run))), {
      domainVisible: true,
      params: RunParams,
      response: RunResp,
      detail: {
        operationId: "v1_get_run",
        summary: "Your run: its state, then compile output and results (extension)",
      },
    });
}
