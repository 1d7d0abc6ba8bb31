import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import { ProblemParams } from "../problems/problems.schemas";
import { findProblem } from "../problems/problems.service";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { findProblemSet } from "../problem-sets/problem-sets.service";
import { reportPage } from "./similarity-page";
import {
  PairParams,
  SetSimilarityResp,
  SimilarityPairResp,
  SimilarityReportResp,
  SimilarityRequest,
  SimilarityStartedResp,
} from "./similarity.schemas";
import * as similarity from "./similarity.service";

/** Reports show everyone's code: only who may already read every record's code, and holds the permission. */
const STAFF = ["record.similarity", "record.code"] as const;
const tags = ["similarity"];

const download = (body: string, type: string, name?: string) =>
  new Response(body, {
    headers: {
      "content-type": type,
      "cache-control": "no-store",
      ...(name ? { "content-disposition": `attachment; filename="${name}"` } : {}),
      // The page runs its own inline script and style, and reaches for nothing else.
      ...(type.startsWith("text/html")
        ? { "content-security-policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'" }
        : {}),
    },
  });

/** Code-similarity reports (extension): started as a job, read from the stored report. */
export function similarityRoutes(deps: AppDeps) {
  const { jobs } = deps;
  return new Elysia({ name: "similarity-routes", prefix: "/domains/:domain", detail: { tags } })
    .use(authPlugin(deps))
    .post(
      "/problems/:problem/similarity",
      async ({ em, access, params, body }) => {
        const problem = await findProblem(em, access, params.problem);
        const report = await similarity.requestReport(em, jobs, access, problem, body ?? {});
        return ok({ state: report.state as "queued" | "running" | "done" | "failed" });
      },
      {
        domainPermission: [...STAFF],
        params: ProblemParams,
        body: t.Optional(SimilarityRequest),
        response: SimilarityStartedResp,
        detail: {
          operationId: "v1_start_problem_similarity",
          summary:
            "Start a code-similarity report of the problem's submissions; one under way answers for itself (extension)",
        },
      },
    )
    .get(
      "/problems/:problem/similarity",
      async ({ em, access, params }) =>
        ok(similarity.reportView(await similarity.reportOf(em, await findProblem(em, access, params.problem)))),
      {
        domainPermission: [...STAFF],
        params: ProblemParams,
        response: SimilarityReportResp,
        detail: { operationId: "v1_get_problem_similarity", summary: "The problem's similarity report (extension)" },
      },
    )
    .get(
      "/problems/:problem/similarity/pairs/:pair",
      async ({ em, access, params }) => {
        const report = await similarity.reportOf(em, await findProblem(em, access, params.problem));
        return ok(similarity.pairView(report, params.pair));
      },
      {
        domainPermission: [...STAFF],
        params: PairParams,
        response: SimilarityPairResp,
        detail: {
          operationId: "v1_get_problem_similarity_pair",
          summary: "One pair of the report: both sources and the lines they share (extension)",
        },
      },
    )
    .get(
      "/problems/:problem/similarity.csv",
      async ({ em, access, params }) => {
        const report = await similarity.reportOf(em, await findProblem(em, access, params.problem));
        return download(similarity.reportCsv(report), "text/csv; charset=utf-8", "similarity.csv");
      },
      {
        domainPermission: [...STAFF],
        params: ProblemParams,
        detail: {
          operationId: "v1_get_problem_similarity_csv",
          summary: "The report's pairs as CSV, UTF-8 with a byte-order mark (extension)",
          responses: { 200: { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } } },
        },
      },
    )
    .get(
      "/problems/:problem/similarity.html",
      async ({ em, access, params }) => {
        const problem = await findProblem(em, access, params.problem);
        const report = await similarity.reportOf(em, problem);
        return download(reportPage(report, problem.title), "text/html; charset=utf-8");
      },
      {
        domainPermission: [...STAFF],
        params: ProblemParams,
        detail: {
          operationId: "v1_get_problem_similarity_page",
          summary: "The report as a self-contained page: ranked pairs, sources side by side (extension)",
          responses: { 200: { description: "HTML", content: { "text/html": { schema: { type: "string" } } } } },
        },
      },
    )
    .post(
      "/problem_sets/:problemSet/similarity",
      async ({ em, access, params, body }) => {
        const set = await findProblemSet(em, access, params.problemSet);
        for (const problem of await similarity.problemsOf(em, set))
          await similarity.requestReport(em, jobs, access, problem, body ?? {});
        return ok(await similarity.setSummary(em, set));
      },
      {
        domainPermission: [...STAFF],
        params: SetParams,
        body: t.Optional(SimilarityRequest),
        response: SetSimilarityResp,
        detail: {
          operationId: "v1_start_problem_set_similarity",
          summary: "Start a similarity report for every problem of the set (extension)",
        },
      },
    )
    .get(
      "/problem_sets/:problemSet/similarity",
      async ({ em, access, params }) =>
        ok(await similarity.setSummary(em, await findProblemSet(em, access, params.problemSet))),
      {
        domainPermission: [...STAFF],
        params: SetParams,
        response: SetSimilarityResp,
        detail: {
          operationId: "v1_get_problem_set_similarity",
          summary: "Each problem's report of the set: its state and size (extension)",
        },
      },
    );
}
