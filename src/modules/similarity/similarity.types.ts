import type { Fragment } from "./similarity-engine";

/** What a report compares (similarity.schemas.ts has the request's schema). */
export interface ReportOptions {
  /** Starter code: its fragments count for no pair. */
  template: string | null;
  minSimilarity: number;
  /** Each user's latest submission, or their best (highest score, then latest). */
  which: "latest" | "best";
}

/** One compared record: whose, in which language, and the source compared (its largest source file). */
export interface ReportSubmission {
  record: string;
  user: string | null;
  username: string | null;
  language: string;
  grammar: string;
  path: string;
  source: string;
}

/** A pair of submissions (indices into the report's submissions) and how much of them they share. */
export interface ReportPair {
  left: number;
  right: number;
  similarity: number;
  longestFragment: number;
  overlap: number;
  fragments: Fragment[];
}
