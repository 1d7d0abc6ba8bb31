import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okList } from "../../http/respond";
import { RateLimiter } from "../../http/rate-limit";
import type { Logger } from "../../core/logger";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { findProblemSet } from "../problem-sets/problem-sets.service";
import { announceRecordChange, clarificationChange } from "../record-events/record-events.bus";
import * as clarifications from "./clarifications.service";
import {
  ClarificationAnnounce,
  ClarificationAnswer,
  ClarificationAsk,
  ClarificationListQuery,
  ClarificationListResp,
  ClarificationParams,
  ClarificationResp,
  type ClarificationView,
} from "./clarifications.schemas";

/**
 * A set's clarifications and announcements (extension; docs/api.md, docs/contests.md "Clarifications"). A new
 * message is announced on the record bus after its commit, so the list streams of those who may read it send it.
 */
export function clarificationsRoutes(deps: AppDeps) {
  const { config, jobs } = deps;
  const limiter = new RateLimiter(deps.redis, deps.logger);
  const told = (log: Logger, domainId: string, view: ClarificationView) => {
    void announceRecordChange(jobs, log, domainId, clarificationChange(view.id));
    return ok(view);
  };

  return new Elysia({
    name: "clarifications-routes",
    prefix: "/domains/:domain/problem_sets/:problemSet/clarifications",
    detail: { tags: ["problem set"] },
  })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, params, query }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return okList(await clarifications.listClarifications(em, access, set, query));
      },
      {
        domainPermission: "problemSet.view",
        params: SetParams,
        query: ClarificationListQuery,
        response: ClarificationListResp,
        detail: {
          operationId: "v1_list_problem_set_clarifications",
          summary: "The set's clarifications the caller may read: their own questions and answers, and public ones",
        },
      },
    )
    .post(
      "",
      async ({ em, log, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        // Counted before anything is checked, as submissions are: a flood of refused questions spends it too.
        await limiter.take(`clarify-user:${access.userId}`, config.rateLimits.clarificationsPerUser, "questions");
        return told(log, access.domainId, await clarifications.askQuestion(em, access, set, body));
      },
      {
        domainPermission: "problem.submit",
        params: SetParams,
        body: ClarificationAsk,
        response: ClarificationResp,
        detail: {
          operationId: "v1_ask_problem_set_clarification",
          summary: "Ask the jury a question about the set or one of its problems (seen by the asker and staff)",
        },
      },
    )
    .post(
      "/announcements",
      async ({ em, log, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return told(log, access.domainId, await clarifications.announce(em, access, set, body));
      },
      {
        domainPermission: "problemSet.clarify",
        params: SetParams,
        body: ClarificationAnnounce,
        response: ClarificationResp,
        detail: {
          operationId: "v1_announce_problem_set_clarification",
          summary: "Announce something to everyone who sees the set",
        },
      },
    )
    .get(
      "/:clarification",
      async ({ em, access, params }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        return ok(await clarifications.getClarification(em, access, set, params.clarification));
      },
      {
        domainPermission: "problemSet.view",
        params: ClarificationParams,
        response: ClarificationResp,
        detail: { operationId: "v1_get_problem_set_clarification", summary: "One clarification the caller may read" },
      },
    )
    .post(
      "/:clarification/answer",
      async ({ em, log, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        const view = await clarifications.answerQuestion(em, access, set, params.clarification, body);
        return told(log, access.domainId, view);
      },
      {
        domainPermission: "problemSet.clarify",
        params: ClarificationParams,
        body: ClarificationAnswer,
        response: ClarificationResp,
        detail: {
          operationId: "v1_answer_problem_set_clarification",
          summary: "Answer a question: to its asker, or (public) to everyone with the question, without the name",
        },
      },
    );
}
