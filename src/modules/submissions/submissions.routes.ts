import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import type { DomainAccess } from "../identity/access";
import { ProblemParams } from "../problems/problems.schemas";
import { findProblem } from "../problems/problems.service";
import { SetProblemParams } from "../problem-sets/problem-sets.schemas";
import { findProblemInSet, findProblemSet, submissionWindow } from "../problem-sets/problem-sets.service";
import { submitSolution, type SubmitTarget } from "./submissions.service";
import { enqueueJudging } from "../judging/tasks/judge-queue";
import { ProblemSolutionSubmit, type SubmissionInput } from "./submissions.schemas";
import { RecordResp } from "../records/records.schemas";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Logger } from "../../core/logger";
import { RateLimiter } from "../../http/rate-limit";

/** Horse's two submit routes. The record is committed before its job is enqueued. */
export function submissionsRoutes(deps: AppDeps) {
  const { store, config, jobs } = deps;
  const limiter = new RateLimiter(deps.redis, deps.logger);

  async function submit(
    em: EntityManager,
    log: Logger,
    access: DomainAccess,
    target: SubmitTarget,
    body: SubmissionInput,
  ) {
    await limiter.take(`submit-user:${access.userId}`, config.rateLimits.submissionsPerUser, "submissions");
    const record = await submitSolution(em, store, config.submissions, access.userId, target, body);
    await enqueueJudging(jobs, log, { recordId: record.id, domainId: target.domainId, taskId: record.taskId });
    return ok(record.view);
  }
  // The two routes are one submission, to a problem directly or through a set: the same rule, form and answer.
  const submission = {
    domainPermission: "problem.submit",
    body: ProblemSolutionSubmit,
    type: "multipart/form-data",
    response: RecordResp,
  } as const;

  return new Elysia({ name: "submissions-routes", prefix: "/domains/:domain", detail: { tags: ["problem"] } })
    .use(authPlugin(deps))
    .post(
      "/problems/:problem",
      async ({ em, log, access, params, body }) => {
        const problem = await findProblem(em, access, params.problem);
        return submit(em, log, access, { domainId: access.domainId, problem, set: null, late: false }, body);
      },
      {
        ...submission,
        params: ProblemParams,
        detail: {
          operationId: "v1_submit_solution_to_problem",
          summary: "Submit files in a language of the latest config; the answer is the queued record",
        },
      },
    )
    .post(
      "/problem_sets/:problemSet/problems/:problem/submit",
      async ({ em, log, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        const problem = await findProblemInSet(em, access, set, params.problem);
        const { late } = await submissionWindow(em, access, set);
        return submit(em, log, access, { domainId: access.domainId, problem, set, late }, body);
      },
      {
        ...submission,
        params: SetProblemParams,
        detail: {
          operationId: "v1_submit_solution_to_problem_set",
          tags: ["problem set"],
          summary:
            "Submit through a set: refused before it unlocks and after it locks, marked late after it is due " +
            "(the caller's own due and lock times where they have an extension)",
        },
      },
    );
}
