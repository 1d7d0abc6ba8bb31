import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { BlobStore } from "../../storage/blob-store";
import type { DomainAccess } from "../identity/access";
import { lateRules } from "../problem-sets/late-penalty";
import { ProblemSetExtension } from "../problem-sets/problem-set-extension.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { managesProblemSets, visibleProblems } from "../problem-sets/problem-sets.service";
import { type Board, type UserRow, forPeople, groupRecords, rankRows, userRow, userRows } from "./board-rank";
import { membersOf, membersStamp, participantsOf } from "./board-people";
import {
  type BoardRecord,
  type BoardRule,
  type BoardSettings,
  type Viewer,
  DEFAULT_PENALTY_VERDICTS,
  frozen,
  resultShown,
  sealed,
} from "./board-rules";
import { boardRecords } from "./board-store";
import type { ScoreboardView } from "./scoreboard.schemas";
import { boardJson, boardView } from "./scoreboard-view";

/**
 * A set's scoreboard (docs/contests.md): a row for each of its participants (board-people.ts), their records
 * by the set's rule, as the caller may see them — a frozen board hides others' results after the freeze from
 * those who do not manage sets, an OI board hides every result until the end — with late penalties by each
 * user's own due time. Hidden from non-managers when the set says so.
 *
 * Fast (docs/contests.md "Speed"): the records are kept per set and read again only where they changed
 * (board-store.ts); the board made from them is kept too, per set, per what its viewers share — the live
 * board, or the public one (frozen or sealed) — with its JSON, until the records, the set, its
 * extensions, the problems shown (or their names) or the domain's members or roles (who is on it) change.
 * A student of a frozen board gets the public rows with only their own row made again, ranked anew.
 */

interface Kept {
  key: string;
  /** The board's people: user id → username. */
  people: Map<string, string>;
  rows: UserRow[];
  board: Board;
  json: string;
}
const kept = new Map<string, Kept>();
const MAX_KEPT = 512;

export interface BoardAnswer {
  view: () => ScoreboardView;
  /** The board's JSON, written once per change of the board when the caller sees the shared one. */
  json: string;
}

export async function scoreboard(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  set: ProblemSet,
  options: { asPublic?: boolean; now?: Date; staffRows?: boolean } = {},
): Promise<BoardAnswer> {
  if (set.scoreboardHidden && !managesProblemSets(access)) {
    throw new BizError("ScoreboardHiddenBadRequestError", "the scoreboard of this problem set is hidden");
  }
  const now = options.now ?? new Date();
  // As the public sees it (a projector run by staff): no one's own results, frozen and sealed as for anyone.
  const viewer: Viewer = options.asPublic
    ? { userId: "", manages: false, now }
    : { userId: access.user.id, manages: managesProblemSets(access), now };
  const problems = await visibleProblems(em, access, set);
  const { settings, stamp } = await settingsOf(em, set);
  // Read with no problem shown too: a removed student's records keep their row.
  const { key, records } = await boardRecords(em, store, set.id, settings.rule === "ioi");
  const members = await membersStamp(em, set.domain.id);
  // Those who see the live board all see the same one; the rest share the public one (frozen or sealed).
  const live = viewer.manages || (!frozen(settings, viewer) && !sealed(settings, viewer));
  const shared: Viewer = live ? { userId: "", manages: true, now } : { userId: "", manages: false, now };
  // Staff's grade book with staff rows (grade-export.ts): every member's row, a board of its own.
  const everyMember = options.staffRows === true && viewer.manages;
  const states = `${frozen(settings, shared)}:${sealed(settings, shared)}`;
  // The problems as the board names them: a renamed one is a new board, though no record changed.
  const board = await sharedBoard(em, set, problems, settings, { ...shared, everyMember }, records, [
    key,
    members,
    stamp,
    states,
    ...problems.map((p) => `${p.id}:${p.url ?? ""}:${p.title}`),
  ]);
  const own = !live && !sealed(settings, viewer) ? ownRows(board.people, records, problems, settings, viewer) : null;
  if (!own) return { json: board.json, view: () => JSON.parse(board.json) as ScoreboardView };
  // A frozen board to a student: their own row with their results, among the others' public rows.
  const rows = rankRows([...board.rows.filter((r) => r.userId !== viewer.userId), ...own], settings);
  const view = boardView(set, problems, settings, { ...board.board, rows });
  return { json: boardJson(view), view: () => view };
}

async function sharedBoard(
  em: EntityManager,
  set: ProblemSet,
  problems: { id: string; url: string | null; title: string }[],
  settings: BoardSettings,
  viewer: Viewer & { everyMember: boolean },
  records: BoardRecord[],
  parts: string[],
): Promise<Kept> {
  const name = `${set.id}:${viewer.manages ? "live" : "public"}${viewer.everyMember ? ":staff" : ""}`;
  const key = parts.join("|");
  const found = kept.get(name);
  if (found && found.key === key) return found;
  // Read after the stamp in the key: a change between the two makes the next request's key differ.
  const people = participantsOf(await membersOf(em, set.domain.id), records, viewer.everyMember);
  const rows = userRows(forPeople(groupRecords(records, problems), people), problems, settings, viewer);
  const board = {
    frozen: frozen(settings, viewer) && !viewer.manages,
    sealed: sealed(settings, viewer),
    rows: rankRows(rows, settings),
  };
  const made = { key, people, rows, board, json: boardJson(boardView(set, problems, settings, board)) };
  kept.delete(name);
  kept.set(name, made);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  return made;
}

/**
 * The viewer's own row, their own results shown (a frozen board); null when the public row is theirs already
 * (no record on the board) or they have none (not a participant).
 */
function ownRows(
  people: ReadonlyMap<string, string>,
  records: BoardRecord[],
  problems: { id: string }[],
  settings: BoardSettings,
  viewer: Viewer,
) {
  if (!people.has(viewer.userId)) return null;
  const mine = groupRecords(
    records.filter((r) => r.userId === viewer.userId),
    problems,
  );
  const shown = (r: BoardRecord) => resultShown(r, settings, viewer);
  const rows = [...mine].map(([userId, user]) => userRow(userId, user, problems, settings, shown));
  return rows.length > 0 ? rows : null;
}

/** The set's scoring settings and its students' own dates, and a stamp that changes when any of them does. */
export async function settingsOf(em: EntityManager, set: ProblemSet) {
  const extensions = await em.find(
    ProblemSetExtension,
    { problemSet: set },
    { fields: ["user", "dueAt", "lockAt", "updatedAt"] },
  );
  const settings: BoardSettings = {
    rule: set.scoreboardRule as BoardRule,
    startAt: set.unlockAt ?? set.createdAt,
    unlockAt: set.unlockAt ?? null,
    dueAt: set.dueAt ?? null,
    lockAt: set.lockAt ?? null,
    penaltyMinutes: set.penaltyMinutes,
    penaltyVerdicts: new Set(set.penaltyVerdicts ?? DEFAULT_PENALTY_VERDICTS),
    freezeAt: set.freezeAt ?? null,
    unfrozenAt: set.unfrozenAt ?? null,
    latePenalty: lateRules(set.latePenalty ?? []),
    own: new Map(extensions.map((e) => [e.user.id, { dueAt: e.dueAt ?? null, lockAt: e.lockAt ?? null }])),
  };
  const changed = Math.max(set.updatedAt.getTime(), ...extensions.map((e) => e.updatedAt.getTime()));
  return { settings, stamp: `${changed}:${extensions.length}:${set.title}` };
}
