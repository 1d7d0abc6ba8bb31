import { Elysia, t } from "elysia";
import type { AppDeps } from "../../../http/app-deps";
import { authPlugin } from "../../identity/http/auth.plugin";
import { ok } from "../../../http/respond";
import { ProblemParams } from "../../problems/problems.schemas";
import { findProblem } from "../../problems/problems.service";
import { findProblemSet } from "../../problem-sets/problem-sets.service";
import { RecordDetailResp, RecordParams } from "../../records/records.schemas";
import { readRecordDetail } from "../../records/records.service";
import { recordUrlOf } from "../protocol/judger-credentials";
import { enqueueJudging } from "../tasks/judge-queue";
import * as rejudge from "./rejudge.service";
import * as metrics from "../../../runtime/metrics";
import { ProblemRejudge, RecordRejudge, RejudgeQueuedResp } from "./rejudge.schemas";

/** Judging again (extension): one record, or a problem's records in bulk behind new submissions. */
export function rejudgeRoutes(deps: AppDeps) {
  const { store, config, jobs } = deps;
  return new Elysia({ name: "rejudge-routes", prefix: "/domains/:domain", detail: { tags: ["record"] } })
    .use(authPlugin(deps))
    .post(
      "/records/:record/rejudge",
      async ({ em, log, access, params, body }) => {
        const task = await rejudge.rejudgeRecord(em, access, params.record, body?.config ?? "latest");
        await enqueueJudging(jobs, log, task);
        metrics.rejudges.inc({ kind: "record" });
        const codeUrl = `${recordUrlOf(config.publicUrl, access.domainId, task.recordId)}/code`;
        return ok(await readRecordDetail(em, store, access, task.recordId, codeUrl, true));
      },
      {
        domainPermission: "record.rejudge",
        params: RecordParams,
        body: t.Optional(RecordRejudge),
        response: RecordDetailResp,
        detail: {
          operationId: "v1_rejudge_record",
          summary: "Judge the record again under a new task id; its result moves to its history (extension)",
        },
      },
    )
    .post(
      "/problems/:problem/rejudge",
      async ({ em, log, access, params, body }) => {
        const problem = await findProblem(em, access, params.problem);
        const set = body?.problemSet === undefined ? null : await findProblemSet(em, access, body.problemSet);
        const queued = await rejudge.rejudgeProblem(em, jobs, log, access, { problem, set }, body ?? {});
        metrics.rejudges.inc({ kind: "bulk" }, queued.queued);
        return ok(queued);
      },
      {
        domainPermission: "record.rejudge",
        params: ProblemParams,
        body: t.Optional(ProblemRejudge),
        response: RejudgeQueuedResp,
        detail: {
          operationId: "v1_rejudge_problem",
          summary:
            "Queue the problem's matching records to be judged again behind new submissions; answers at once " +
            "(extension)",
        },
      },
    );
}
