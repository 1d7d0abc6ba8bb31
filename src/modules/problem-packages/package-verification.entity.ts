import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties, createdProperties } from "../../db/base-properties";
import { Problem } from "../problems/problem.entity";
import type { VerdictRule } from "./model/package-model";

/** One of a package's own submissions, run to check the import (docs/problem-packages.md "Verification"). */
export interface VerifiedSubmission {
  /** Its path in the package. */
  path: string;
  /** What the package says it earns, in the format's words (a Kattis folder, a Polygon tag). */
  expected: string;
  /** The case verdicts it may and must have, as the format defines `expected`. */
  rules: VerdictRule[];
  score?: { min: number; max: number } | "partial";
  /** The language preset it was judged in, or null when it was not judged. */
  language: string | null;
  /** The record judging it (no committer, no set), or null when it was not judged. */
  record: string | null;
  /** Why it was not judged. */
  skipped: string | null;
}

/**
 * A package import: its format, what the import said (notes), and its submissions, each with the record that
 * judges it.
 */
export const PackageVerification = defineEntity({
  name: "PackageVerification",
  tableName: "package_verifications",
  uniques: [{ name: "package_verifications_problem_unique", properties: ["problem"] }],
  properties: {
    ...baseProperties,
    problem: () => p.manyToOne(Problem).deleteRule("cascade"),
    format: p.string().length(16),
    submissions: p.json<VerifiedSubmission[]>().defaultRaw("'[]'::jsonb"),
    notes: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    /** The config's full score, against which "partial" is read. */
    fullScore: p.integer().default(0),
    /** The package's case paths in config order, for the reasons shown. */
    casePaths: p.json<string[]>().defaultRaw("'[]'::jsonb"),
  },
});

export type PackageVerification = InferEntity<typeof PackageVerification>;

/**
 * A file of a package shown to solvers (docs/problem-packages.md "Statements and attachments"): an image its
 * statement links, or an attachment; served by name to whoever may see the problem, kept alive by its digest.
 */
export const ProblemAttachment = defineEntity({
  name: "ProblemAttachment",
  tableName: "problem_attachments",
  uniques: [{ name: "problem_attachments_problem_name_unique", properties: ["problem", "name"] }],
  // The blob collector asks whether any row holds a digest (BLOB_REFS).
  indexes: [{ name: "problem_attachments_digest_index", properties: ["digest"] }],
  properties: {
    ...createdProperties,
    problem: () => p.manyToOne(Problem).deleteRule("cascade"),
    /** The name it is served under: its path below the statement's folder, or attachments/…. */
    name: p.string().length(255),
    digest: p.string().length(64),
    size: p.integer(),
  },
});

export type ProblemAttachment = InferEntity<typeof ProblemAttachment>;
