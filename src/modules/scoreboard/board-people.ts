import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../storage/blob-store";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { boardRecords } from "./board-store";
import { BOARD_MEMBERS_SQL, BOARD_MEMBERS_STAMP_SQL } from "./scoreboard.sql";

/**
 * Who is on a set's board (docs/contests.md "Who is on a board"), the one rule the JSON board, the grade book
 * and the Contest API's teams follow: the domain's participants — members whose role may submit and does not
 * manage sets (PARTICIPANTS_SQL) — and anyone else with a record in the set who is no member now (a student
 * removed since). A member is judged by their role alone: staff who tested the set are on no board (DOMjudge
 * keeps the jury's submissions off its scoreboard too), and a student made a TA leaves it at once.
 */

export interface Member {
  user_id: string;
  username: string;
  participant: boolean;
}

/**
 * The rule: each participant's id and username, members first. `everyMember`: staff's grade book with staff
 * rows, every member's row (staff's own scores beside the students').
 */
export function participantsOf(
  members: readonly Member[],
  records: readonly { userId: string; username: string }[],
  everyMember = false,
): Map<string, string> {
  const people = new Map<string, string>();
  const isMember = new Set(members.map((member) => member.user_id));
  for (const member of members) if (member.participant || everyMember) people.set(member.user_id, member.username);
  for (const record of records)
    if (!isMember.has(record.userId) && !people.has(record.userId)) people.set(record.userId, record.username);
  return people;
}

export const membersOf = (em: EntityManager, domainId: string) =>
  em.execute<Member[]>(BOARD_MEMBERS_SQL, [domainId, domainId]);

/** A stamp that moves whenever the domain's members or roles change (a board kept is keyed by it). */
export async function membersStamp(em: EntityManager, domainId: string): Promise<string> {
  const [row] = await em.execute<{ stamp: string }[]>(BOARD_MEMBERS_STAMP_SQL, [domainId, domainId]);
  return row.stamp;
}

/** A set's participants, for those who need who but not the board (the Contest API's teams). */
export async function setParticipants(em: EntityManager, store: BlobStore, set: ProblemSet) {
  const { records } = await boardRecords(em, store, set.id, set.scoreboardRule === "ioi");
  return participantsOf(await membersOf(em, set.domain.id), records);
}
