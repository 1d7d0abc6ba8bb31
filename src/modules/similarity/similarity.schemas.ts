import { t } from "elysia";
import { Envelope, OutInt } from "../../http/schemas";

/** What a report compares (extension); the body may be left out. */
export const SimilarityRequest = t.Object(
  {
    template: t.Optional(
      t.String({
        maxLength: 256 * 1024,
        description: "starter code every student got: its fragments count for no pair",
      }),
    ),
    minSimilarity: t.Optional(
      t.Number({ minimum: 0, maximum: 1, description: "pairs less similar are left out (default 0)" }),
    ),
    which: t.Optional(
      t.Union([t.Literal("latest"), t.Literal("best")], {
        description: "each user's latest submission (default), or their best (highest score, then latest)",
      }),
    ),
  },
  { title: "SimilarityRequest" },
);
export type SimilarityRequestInput = typeof SimilarityRequest.static;

const State = t.Union([t.Literal("queued"), t.Literal("running"), t.Literal("done"), t.Literal("failed")], {
  title: "SimilarityState",
});
export const SimilarityStarted = t.Object({ state: State }, { title: "SimilarityStarted" });
export const SimilarityStartedResp = Envelope(SimilarityStarted, "SimilarityStartedResp");

const Side = t.Object(
  { record: t.String(), user: t.Union([t.String(), t.Null()]), username: t.Union([t.String(), t.Null()]) },
  { title: "SimilaritySide" },
);
const PairSummary = t.Object(
  {
    index: OutInt({ description: "the pair's number, for …/similarity/pairs/{n}" }),
    left: Side,
    right: Side,
    language: t.String(),
    similarity: t.Number({ description: "the share of both files their common fragments cover, 0 to 1" }),
    longestFragment: OutInt({ description: "the longest common fragment, in fingerprints (runs of 23 tokens)" }),
    overlap: OutInt({ description: "fingerprints in common" }),
  },
  { title: "SimilarityPair" },
);
export const SimilarityReportView = t.Object(
  {
    state: State,
    reason: t.Union([t.String(), t.Null()]),
    createdAt: t.String(),
    finishedAt: t.Union([t.String(), t.Null()]),
    submissions: OutInt({ description: "submissions compared (one per user)" }),
    language: t.Array(t.Object({ name: t.String(), submissions: OutInt() }), {
      description: "the languages compared, each within itself",
    }),
    pairs: t.Array(PairSummary, { description: "highest similarity first (at most 1,000)" }),
  },
  { title: "SimilarityReport" },
);
export const SimilarityReportResp = Envelope(SimilarityReportView, "SimilarityReportResp");

const SideWithSource = t.Object({ ...Side.properties, path: t.String(), source: t.String() });
export const SimilarityPairView = t.Object(
  {
    ...PairSummary.properties,
    left: SideWithSource,
    right: SideWithSource,
    fragments: t.Array(
      t.Object({
        left: t.Array(OutInt(), { description: "first and last line (from 1) in the left source" }),
        right: t.Array(OutInt(), { description: "first and last line (from 1) in the right source" }),
      }),
    ),
  },
  { title: "SimilarityPairDetail" },
);
export const SimilarityPairResp = Envelope(SimilarityPairView, "SimilarityPairResp");
export const PairParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  problem: t.String({ minLength: 1, maxLength: 256 }),
  pair: t.Numeric({ minimum: 0 }),
});

export const SetSimilarityView = t.Object(
  {
    count: OutInt(),
    results: t.Array(
      t.Object({ problem: t.String(), title: t.String(), state: t.Union([State, t.Null()]), submissions: OutInt() }),
    ),
  },
  { title: "SetSimilarity" },
);
export const SetSimilarityResp = Envelope(SetSimilarityView, "SetSimilarityResp");
