import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../storage/blob-store";
import type { DomainAccess } from "../identity/access";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { managesProblemSets, visibleProblems } from "../problem-sets/problem-sets.service";
import { holds } from "../identity/access-rules";
import { DEFAULT_PENALTY_VERDICTS, endOf, frozen } from "../scoreboard/board-rules";
import { caseLayout } from "../judging/protocol/case-layout";
import { uuidArray } from "../../db/addressing";
import type * as S from "./ccs.schemas";
import { ccsRelTime, ccsTime } from "./ccs.schemas";
import * as ids from "./ccs-ids";
import { setParticipants } from "../scoreboard/board-people";
import { CCS_LATEST_CONFIGS_SQL, CCS_RECORDS_SQL } from "./ccs.sql";
import { judgementsOf, type RecordRow } from "./ccs-judgements";
import { clarificationsOf } from "./ccs-clarifications";

/**
 * A problem set as a Contest API contest (docs/contest-api.md): its objects as one caller may see them. The
 * public view (whoever does not manage sets) is the CCS requirements' public role: no judgement or run of a
 * submission made during the freeze until the thaw, no submission's files, and others' submissions only with
 * record.view (as the records list); the admin view (problemSet.viewHidden) sees everything. Only ICPC sets with an end are contests (the spec's pass-fail scoreboard needs one).
 */
export type CcsView = "public" | "admin";

export interface CcsContext {
  em: EntityManager;
  store: BlobStore;
  access: DomainAccess;
  set: ProblemSet;
  view: CcsView;
  now: Date;
  /** Where the submissions' files are served: the API's public address. */
  publicUrl: string;
}

export interface Snapshot {
  contest: S.CcsContestView;
  state: S.CcsStateView;
  "judgement-types": S.CcsJudgementTypeView[];
  languages: S.CcsLanguageView[];
  problems: (S.CcsProblemView & { uuid: string })[];
  groups: S.CcsGroupView[];
  organizations: S.CcsOrganizationView[];
  teams: S.CcsTeamView[];
  submissions: S.CcsSubmissionView[];
  judgements: (S.CcsJudgementView & { record: string })[];
  runs: (S.CcsRunView & { record: string })[];
  clarifications: S.CcsClarificationView[];
}

export const viewOf = (access: DomainAccess): CcsView => (managesProblemSets(access) ? "admin" : "public");

/** A contest's start and end: the set's opening (else its creation) and its lock, else due, time. */
export function windowOf(set: ProblemSet): { start: Date; end: Date } | null {
  const end = endOf(set);
  const start = set.unlockAt ?? set.createdAt;
  // An end before the start (a set opened after its due time) is a contest of no length, not a negative one.
  return end ? { start, end: new Date(Math.max(start.getTime(), end.getTime())) } : null;
}

/** ICPC sets score pass-fail, IOI sets by points (the spec's `score` contests); both need an end. */
export const isContest = (set: ProblemSet) =>
  (set.scoreboardRule === "icpc" || set.scoreboardRule === "ioi") && windowOf(set) !== null;
export const scoresPoints = (set: ProblemSet) => set.scoreboardRule === "ioi";

export function contestOf(set: ProblemSet): S.CcsContestView {
  const { start, end } = windowOf(set)!;
  const freeze = set.freezeAt && set.freezeAt >= start && set.freezeAt <= end ? set.freezeAt : null;
  return {
    id: set.id,
    name: set.title,
    formal_name: set.title,
    start_time: ccsTime(start),
    duration: ccsRelTime(Math.max(0, end.getTime() - start.getTime())),
    ...(freeze ? { scoreboard_freeze_duration: ccsRelTime(end.getTime() - freeze.getTime()) } : {}),
    ...(scoresPoints(set)
      ? { scoreboard_type: "score" as const }
      : { scoreboard_type: "pass-fail" as const, penalty_time: set.penaltyMinutes }),
  };
}

/** Whether others' results after the freeze are hidden from the public now: the board's own rule. */
export const frozenNow = (set: ProblemSet, now: Date) =>
  frozen({ freezeAt: set.freezeAt ?? null, unfrozenAt: set.unfrozenAt ?? null }, { now });

/** The contest's state: what has happened by `now`; thawed and finalized once it has ended (spec order). */
export function stateOf(set: ProblemSet, now: Date): S.CcsStateView {
  const { start, end } = windowOf(set)!;
  const at = (when: Date | null) => (when && now >= when ? when : null);
  const started = at(start);
  const frozen = started && set.freezeAt && set.freezeAt >= start && set.freezeAt <= end ? at(set.freezeAt) : null;
  const ended = at(end);
  const unfrozen = frozen && set.unfrozenAt && set.unfrozenAt >= frozen ? set.unfrozenAt : null;
  const thawed = ended && unfrozen ? new Date(Math.max(unfrozen.getTime(), end.getTime())) : null;
  // Finalized when staff said so (after the end, maybe still frozen: the resolver's cue), or by itself at the end
  // of a contest never frozen, or at the thaw: whichever came first. Never before the end.
  const declared = ended && set.finalizedAt ? new Date(Math.max(set.finalizedAt.getTime(), end.getTime())) : null;
  const itself = ended && (!frozen || thawed) ? (thawed ?? ended) : null;
  const finalized =
    declared && itself ? new Date(Math.min(declared.getTime(), itself.getTime())) : (declared ?? itself);
  const time = (when: Date | null) => (when ? ccsTime(when) : null);
  return {
    started: time(started),
    frozen: time(frozen),
    ended: time(ended),
    thawed: time(thawed),
    finalized: time(finalized),
    end_of_updates: null,
  };
}

export async function snapshotOf(ctx: CcsContext): Promise<Snapshot> {
  const { em, set, view, now } = ctx;
  const { start } = windowOf(set)!;
  const rel = (when: Date) => ccsRelTime(when.getTime() - start.getTime());
  const penalties = new Set(set.penaltyVerdicts ?? DEFAULT_PENALTY_VERDICTS);
  const problems = await problemsOf(ctx);
  const byUuid = new Map(problems.map((p) => [p.uuid, p.id]));
  // em.execute gives timestamps as PostgreSQL writes them: read as dates here, once.
  const rows = (await em.execute<RecordRow[]>(CCS_RECORDS_SQL, [set.domain.id, set.id])).map((row) => ({
    ...row,
    created_at: new Date(row.created_at),
    judged_at: row.judged_at === null ? null : new Date(row.judged_at),
    updated_at: new Date(row.updated_at),
  }));
  // The teams are the board's people (board-people.ts): staff who tested the set are none.
  const teams = [...(await setParticipants(em, ctx.store, set))]
    .map(([id, username]) => ({ id, username }))
    .sort((a, b) => (a.username === b.username ? (a.id < b.id ? -1 : 1) : a.username < b.username ? -1 : 1));
  const hidden = (row: RecordRow) => view === "public" && frozenNow(set, now) && row.created_at >= set.freezeAt!;
  // Others' submissions and verdicts are what the records list shows: to holders of record.view alone.
  const seesRecords = view === "admin" || holds(ctx.access, "record.view");
  const languages = new Set([...problems.flatMap((p) => p.languageNames), ...rows.map((r) => r.language)]);
  const snapshot: Snapshot = {
    contest: contestOf(set),
    state: stateOf(set, now),
    // A penalty only where there is a penalty time: a score contest's types have none.
    "judgement-types": ids.JUDGEMENT_TYPES.map((type) => ({
      id: type.id,
      name: type.name,
      ...(scoresPoints(set) ? {} : { penalty: type.verdict !== null && penalties.has(type.verdict) }),
      solved: type.solved,
    })),
    languages: [...languages].sort().map((name) => ({
      id: ids.languageId(name),
      name,
      entry_point_required: false,
      extensions: ids.extensionsOf(name),
    })),
    problems: problems.map(({ languageNames: _, ...problem }) => problem),
    groups: [],
    organizations: [],
    teams: teams.map((team) => ({ id: team.id, name: team.username, label: team.username, group_ids: [] })),
    submissions: [],
    judgements: [],
    runs: [],
    clarifications: await clarificationsOf({
      ...{ em, set, view, start, problems: byUuid },
      teams: new Set(teams.map((team) => team.id)),
    }),
  };
  for (const row of seesRecords ? rows : []) {
    const problem = byUuid.get(row.problem);
    if (!problem || !row.team) continue;
    snapshot.submissions.push({
      id: row.id,
      language_id: ids.languageId(row.language),
      problem_id: problem,
      team_id: row.team,
      time: ccsTime(row.created_at),
      contest_time: rel(row.created_at),
      // Said as null, not left out: 2023-06's published schema lets a C or C++ submission pass only with an
      // explicit null (its two branches both match an absent one), and null suits every language we judge.
      entry_point: null,
      // The public view shows no code, as an empty list: 2023-06's published schema requires `files`.
      files: view === "admin" ? [codeFile(ctx, row.id)] : [],
    });
    if (!hidden(row)) judgementsOf(row, rel, snapshot, scoresPoints(set));
  }
  return snapshot;
}

const codeFile = (ctx: CcsContext, id: string) => ({
  href: `${ctx.publicUrl}/api/v1/domains/${ctx.set.domain.id}/records/${id}/code`,
  filename: `submission-${id}.zip`,
  mime: "application/zip" as const,
});

/**
 * The set's problems as the caller sees them (none to the public before the start), each with an id of the
 * first 8 digits of its UUID (short enough for `first-to-solve-<id>`; two alike get their place after it), its letter, and the time limit and
 * case count of its latest config's first language.
 */
async function problemsOf(ctx: CcsContext) {
  const problems = await visibleProblems(ctx.em, ctx.access, ctx.set);
  const latest = new Map(
    (
      await ctx.em.execute<{ problem: string; config: string }[]>(CCS_LATEST_CONFIGS_SQL, [
        uuidArray(problems.map((p) => p.id)),
      ])
    ).map((row) => [row.problem, row.config]),
  );
  const short = new Map<string, number>();
  for (const p of problems) short.set(p.id.slice(0, 8), (short.get(p.id.slice(0, 8)) ?? 0) + 1);
  return Promise.all(
    problems.map(async (p, ordinal) => {
      const layout = await caseLayout(ctx.em, ctx.store, latest.get(p.id) ?? null, p.languages[0] ?? "").catch(
        () => null,
      );
      return {
        uuid: p.id,
        id: short.get(p.id.slice(0, 8)) === 1 ? p.id.slice(0, 8) : `${p.id.slice(0, 8)}-${ordinal}`,
        label: ids.problemLabel(ordinal),
        name: p.title,
        ordinal,
        time_limit: Math.max(0, ...(layout?.timesMs ?? [])) / 1000,
        test_data_count: layout?.categories.length ?? 0,
        ...(scoresPoints(ctx.set) ? { max_score: layout?.maxScore ?? 0 } : {}),
        languageNames: p.languages,
      };
    }),
  );
}
