import { Elysia } from "elysia";
import type { AppDeps } from "../../../http/app-deps";
import { authPlugin } from "../../identity/http/auth.plugin";
import { ok } from "../../../http/respond";
import { nextTask } from "./judge-tasks.service";
import { JudgeTaskResp, NextTaskBody } from "./judge-tasks.schemas";

/** Longest a long poll may hold its connection; above the 30 s a judger may ask for. */
const POLL_IDLE_SECONDS = 40;
/** How often a waiting poll notices that the server is stopping. */
const STOP_CHECK_MS = 500;

/**
 * Work for judgers that reach only this API (extension): the oldest waiting task, long-polled. The
 * judger then claims it on Horse's claim route, which stays the one place a record changes hands.
 */
export function judgeTasksRoutes(deps: AppDeps) {
  return new Elysia({ name: "judge-task-routes", detail: { tags: ["judge"] } }).use(authPlugin(deps)).post(
    "/judge/next_task",
    async ({ em, body, request, server }) => {
      server?.timeout(request, POLL_IDLE_SECONDS);
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      request.signal.addEventListener("abort", onAbort);
      const watch = setInterval(() => deps.shuttingDown() && stop.abort(), STOP_CHECK_MS);
      try {
        return ok(await nextTask(em, (body.waitSeconds ?? 25) * 1000, stop.signal));
      } finally {
        clearInterval(watch);
        request.signal.removeEventListener("abort", onAbort);
      }
    },
    {
      sitePermission: "record.judge",
      body: NextTaskBody,
      response: JudgeTaskResp,
      detail: {
        operationId: "v1_next_judge_task",
        summary:
          "The oldest waiting task for a site judger, waiting up to waitSeconds for one (extension; null when none)",
      },
    },
  );
}
