import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { Problem } from "../problems/problem.entity";

/** One of a package's own submissions, run to check the import (docs/running-a-course.md "Problem packages"). */
export interface VerifiedSubmission {
  /** Its path in the package. */
  path: string;
  /** The verdict the package says it earns. */
  expected: string;
  /** The language preset it was judged in, or null when none fits its file (then not judged). */
  language: string | null;
  /** The record judging it (no committer, no set), or null when it was not judged. */
  record: string | null;
  /** Why it was not judged. */
  skipped: string | null;
}

/** A package import's verification: its submissions, each with the record that judges it. */
export const PackageVerification = defineEntity({
  name: "PackageVerification",
  tableName: "package_verifications",
  uniques: [{ name: "package_verifications_problem_unique", properties: ["problem"] }],
  properties: {
    ...baseProperties,
    problem: () => p.manyToOne(Problem).deleteRule("cascade"),
    format: p.string().length(16),
    submissions: p.json<VerifiedSubmission[]>().defaultRaw("'[]'::jsonb"),
  },
});

export type PackageVerification = InferEntity<typeof PackageVerification>;
