import type { EntityManager } from "@mikro-orm/postgresql";
import { Clarification } from "../clarifications/clarification.entity";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import type { CcsClarificationView } from "./ccs.schemas";
import { ccsRelTime, ccsTime } from "./ccs.schemas";

/**
 * A set's clarifications (docs/contests.md "Clarifications") as Contest API clarifications, one per message: a
 * question `from_team_id` its asker, a private answer `to_team_id` the asker, an answer to all and an
 * announcement neither. The admin view has them all; the public view only those to all teams, as the CCS
 * requirements give the `public` role ("both `from_team_id` and `to_team_id` are `null`"). A public answer's
 * question is not public, so there it has no `reply_to_id` and carries the question quoted in its text, as the
 * requirements have a jury send the request's text along with its answer.
 */
export interface ClarificationScope {
  em: EntityManager;
  set: ProblemSet;
  view: "public" | "admin";
  start: Date;
  /** The problems the caller sees, by UUID: their Contest API ids. A message about another one is left out. */
  problems: Map<string, string>;
  /** The contest's teams: a message from or to anyone else (staff trying the form) is no team's, left out. */
  teams: Set<string>;
}

export async function clarificationsOf(scope: ClarificationScope): Promise<CcsClarificationView[]> {
  const { em, set, view, start, problems, teams } = scope;
  const rows = await em.find(
    Clarification,
    { domain: set.domain.id, problemSet: set.id, ...(view === "public" ? { public: true } : {}) },
    { populate: ["replyTo"], orderBy: { createdAt: "asc", id: "asc" } },
  );
  const views: CcsClarificationView[] = [];
  // Questions come before their answers (by time): an answer refers only to a question that was sent.
  const sent = new Set<string>();
  for (const row of rows) {
    const problem = row.problem ? problems.get(row.problem.id) : null;
    if (problem === undefined) continue;
    const from = row.kind === "question" ? (row.author?.id ?? null) : null;
    if (row.kind === "question" && !(from && teams.has(from))) continue;
    // A private answer whose asker is gone (null) must not pass for one to all.
    const privately = row.kind === "answer" && !row.public;
    const to = privately ? (row.recipient?.id ?? null) : null;
    if (privately && !(to && teams.has(to))) continue;
    const quoted = view === "public" && row.replyTo;
    sent.add(row.id);
    views.push({
      id: row.id,
      from_team_id: from,
      to_team_id: to,
      reply_to_id: row.replyTo && sent.has(row.replyTo.id) ? row.replyTo.id : null,
      problem_id: problem,
      text: quoted ? `${quote(row.replyTo!.text)}\n\n${row.text}` : row.text,
      time: ccsTime(row.createdAt),
      contest_time: ccsRelTime(row.createdAt.getTime() - start.getTime()),
    });
  }
  return views;
}

/** A question as a reply quotes it: each line after "> ". */
const quote = (text: string) =>
  text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
