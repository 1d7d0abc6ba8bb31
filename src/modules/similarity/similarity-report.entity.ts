import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { Domain } from "../domains/domain.entity";
import { Problem } from "../problems/problem.entity";
import { User } from "../users/user.entity";
import type { ReportPair, ReportOptions, ReportSubmission } from "./similarity.types";

/**
 * A problem's code-similarity report (docs/running-a-course.md "Code similarity"): one per problem, made anew by each
 * request once the last one has ended. The analysis job (similarity.jobs.ts) fills it; the API only reads.
 */
export const SimilarityReport = defineEntity({
  name: "SimilarityReport",
  tableName: "similarity_reports",
  uniques: [{ name: "similarity_reports_problem_unique", properties: ["problem"] }],
  indexes: [{ name: "similarity_reports_domain_index", properties: ["domain"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("cascade"),
    problem: () => p.manyToOne(Problem).deleteRule("cascade"),
    requestedBy: () => p.manyToOne(User).nullable().deleteRule("set null"),
    /** queued, running, done or failed. */
    state: p.string().length(16),
    /** Why a failed report failed. */
    reason: p.text().nullable(),
    options: p.json<ReportOptions>(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** The records compared (one per user), in the order the pairs refer to them. */
    submissions: p.json<ReportSubmission[]>().defaultRaw("'[]'::jsonb"),
    /** Highest similarity first. */
    pairs: p.json<ReportPair[]>().defaultRaw("'[]'::jsonb"),
  },
});

export type SimilarityReport = InferEntity<typeof SimilarityReport>;
