import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { closed, Count, Id, PosRelTime, RelTime, scoreboardRow, Seconds, Time } from "./ccs-schema-parts";

/**
 * What our read-only ICPC CCS Contest API (spec 2023-06, Contest_API.md) sends, written from the spec's text.
 * Every object is closed: clients must accept unknown properties, but `/access` promises exactly the
 * properties we list, so one we never declared is our bug. A `<type> ?` property we have no value for is
 * left out rather than sent as null (the spec treats the two alike); rules a schema cannot say (a pass-fail
 * contest has a penalty_time, ...) are checked by tests/helpers/ccs-validate.ts.
 */

export { CCS_ID, CCS_POS_RELTIME, CCS_RELTIME, CCS_TIME, ccsRelTime, ccsTime } from "./ccs-formats";

/** Event types, in the spec's order; only those we serve (no persons, accounts, commentary). */
export const CCS_EVENT_TYPES = [
  ...["contest", "judgement-types", "languages", "problems", "groups", "organizations", "teams"],
  ...["state", "submissions", "judgements", "runs", "clarifications", "awards"],
] as const;

/** The 33 ids of the spec's "Known judgement types" table (its Big 5, their refinements, and the errors). */
export const CCS_JUDGEMENT_TYPE_IDS = [
  ...["AC", "RE", "WA", "TLE", "RTE", "CE", "APE", "OLE", "PE", "EO", "IO", "NO"],
  ...["WTL", "ILE", "TCO", "TWA", "TPE", "TEO", "TIO", "TNO"],
  ...["MLE", "SV", "IF", "RCO", "RWA", "RPE", "REO", "RIO", "RNO"],
  ...["CTL", "JE", "SE", "CS"],
] as const;

export const CcsApiInfo = t.Object(
  {
    version: t.Literal("2023-06"),
    version_url: t.String(),
    provider: t.Optional(t.Object({ name: t.String(), version: t.Optional(t.String()) }, closed("CcsProvider"))),
  },
  closed("CcsApiInfo"),
);

export const CcsAccess = t.Object(
  {
    // Every capability lets a client write (start the contest, submit); a read-only API has none to offer.
    capabilities: t.Array(t.String(), { maxItems: 0 }),
    endpoints: t.Array(
      t.Object(
        {
          type: t.UnionEnum(CCS_EVENT_TYPES),
          // The spec: an endpoint with nothing visible is left out, never listed with an empty array.
          properties: t.Array(t.String(), { minItems: 1, uniqueItems: true }),
        },
        closed("CcsAccessEndpoint"),
      ),
    ),
  },
  closed("CcsAccess"),
);

// No countdown_pause_time: we never pause a countdown. No scoreboard_thaw_time, banner, logo or location either.
export const CcsContest = t.Object(
  {
    id: Id,
    name: t.String(),
    formal_name: t.Optional(t.String()),
    start_time: t.Nullable(Time),
    duration: PosRelTime,
    scoreboard_freeze_duration: t.Optional(PosRelTime),
    scoreboard_type: t.UnionEnum(["pass-fail", "score"]),
    penalty_time: t.Optional(t.Integer({ minimum: 0, description: "minutes per rejected attempt" })),
  },
  closed("CcsContest"),
);

// Every key always present, null until it happens, so a client never mistakes "not sent" for "not yet".
const When = t.Nullable(Time);
export const CcsState = t.Object(
  { started: When, frozen: When, ended: When, thawed: When, finalized: When, end_of_updates: When },
  closed("CcsState"),
);

export const CcsJudgementType = t.Object(
  { id: t.UnionEnum(CCS_JUDGEMENT_TYPE_IDS), name: t.String(), penalty: t.Optional(t.Boolean()), solved: t.Boolean() },
  closed("CcsJudgementType"),
);

export const CcsLanguage = t.Object(
  {
    id: Id,
    name: t.String(),
    entry_point_required: t.Boolean(),
    entry_point_name: t.Optional(t.String()),
    extensions: t.Array(t.String()),
  },
  closed("CcsLanguage"),
);

export const CcsProblem = t.Object(
  {
    id: Id,
    label: t.String(),
    name: t.String(),
    ordinal: t.Integer({ minimum: 0 }),
    rgb: t.Optional(t.String({ pattern: "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$" })),
    color: t.Optional(t.String()),
    time_limit: Seconds,
    test_data_count: Count,
    max_score: t.Optional(t.Number()),
  },
  closed("CcsProblem"),
);

export const CcsGroup = t.Object({ id: Id, name: t.String() }, closed("CcsGroup"));

export const CcsOrganization = t.Object(
  { id: Id, name: t.String(), formal_name: t.Optional(t.String()) },
  closed("CcsOrganization"),
);

export const CcsTeam = t.Object(
  {
    id: Id,
    name: t.String(),
    label: t.String(),
    display_name: t.Optional(t.String()),
    organization_id: t.Optional(t.Nullable(Id)),
    group_ids: t.Optional(t.Array(Id)),
    hidden: t.Optional(t.Boolean()),
  },
  closed("CcsTeam"),
);

// The spec allows exactly one archive, and only application/zip, holding the files at its root.
const SubmissionArchive = t.Object(
  { href: t.String(), filename: t.String(), mime: t.Literal("application/zip") },
  closed("CcsSubmissionArchive"),
);

export const CcsSubmission = t.Object(
  {
    id: Id,
    language_id: Id,
    problem_id: Id,
    team_id: Id,
    time: Time,
    contest_time: RelTime,
    entry_point: t.Null({ description: "no language of ours needs one (languages' entry_point_required)" }),
    // Empty in the public view: the CCS requirements show a submission's files to admins and analysts only. The
    // spec's text calls the property optional; its published schema (check-api.sh) requires it.
    files: t.Array(SubmissionArchive, { maxItems: 1 }),
  },
  closed("CcsSubmission"),
);

export const CcsJudgement = t.Object(
  {
    id: Id,
    submission_id: Id,
    judgement_type_id: t.Optional(t.Nullable(Id)),
    score: t.Optional(t.Number()),
    start_time: Time,
    start_contest_time: RelTime,
    end_time: t.Optional(t.Nullable(Time)),
    end_contest_time: t.Optional(t.Nullable(RelTime)),
    max_run_time: t.Optional(t.Nullable(Seconds)),
  },
  closed("CcsJudgement"),
);

export const CcsRun = t.Object(
  {
    id: Id,
    judgement_id: Id,
    ordinal: t.Integer({ minimum: 1, description: "the test case, 1 to the problem's test_data_count" }),
    judgement_type_id: Id,
    time: Time,
    contest_time: RelTime,
    run_time: t.Optional(Seconds),
  },
  closed("CcsRun"),
);

// A question has from_team_id, a private answer to_team_id, never both (the spec). The four ids are always
// sent, null when none: the published schema allows that, and its own first example does so.
export const CcsClarification = t.Object(
  {
    id: Id,
    from_team_id: t.Nullable(Id),
    to_team_id: t.Nullable(Id),
    reply_to_id: t.Nullable(Id),
    problem_id: t.Nullable(Id),
    text: t.String(),
    time: Time,
    contest_time: RelTime,
  },
  closed("CcsClarification"),
);

// team_ids null: nobody keeps this award up to date (yet); [] means kept, but nobody has earned it.
export const CcsAward = t.Object(
  { id: Id, citation: t.String(), team_ids: t.Nullable(t.Array(Id)) },
  closed("CcsAward"),
);

export const CcsScoreboard = t.Object(
  { time: Time, contest_time: RelTime, state: CcsState, rows: t.Array(scoreboardRow()) },
  closed("CcsScoreboard"),
);

/** One line of the NDJSON event feed; `data` is checked against CCS_ENDPOINT_SCHEMAS[type] by the tests. */
export const CcsEvent = t.Object(
  {
    type: t.UnionEnum(CCS_EVENT_TYPES),
    id: t.Nullable(Id),
    data: t.Union([t.Record(t.String(), t.Unknown()), t.Array(t.Unknown()), t.Null()]),
    token: t.Optional(t.String()),
  },
  closed("CcsEvent"),
);

/** A collection endpoint's answer: an array of the objects its single-object endpoint returns. */
export const CcsList = <T extends TSchema>(schema: T) => t.Array(schema);

/** One object's schema by event type and by endpoint name ("contest" and "contests" alike). */
export const CCS_ENDPOINT_SCHEMAS: Record<string, TSchema> = {
  // The spec's four kinds of endpoint: metadata, configuration, live data, aggregate data.
  ...{ api: CcsApiInfo, access: CcsAccess },
  ...{ contest: CcsContest, contests: CcsContest, "judgement-types": CcsJudgementType, languages: CcsLanguage },
  ...{ problems: CcsProblem, groups: CcsGroup, organizations: CcsOrganization, teams: CcsTeam },
  ...{ state: CcsState, submissions: CcsSubmission, judgements: CcsJudgement, runs: CcsRun, awards: CcsAward },
  clarifications: CcsClarification,
  ...{ scoreboard: CcsScoreboard, "event-feed": CcsEvent },
};

export type CcsContestView = typeof CcsContest.static;
export type CcsStateView = typeof CcsState.static;
export type CcsJudgementTypeView = typeof CcsJudgementType.static;
export type CcsLanguageView = typeof CcsLanguage.static;
export type CcsProblemView = typeof CcsProblem.static;
export type CcsGroupView = typeof CcsGroup.static;
export type CcsOrganizationView = typeof CcsOrganization.static;
export type CcsTeamView = typeof CcsTeam.static;
export type CcsSubmissionView = typeof CcsSubmission.static;
export type CcsJudgementView = typeof CcsJudgement.static;
export type CcsRunView = typeof CcsRun.static;
export type CcsAwardView = typeof CcsAward.static;
export type CcsClarificationView = typeof CcsClarification.static;
export type CcsScoreboardView = typeof CcsScoreboard.static;
