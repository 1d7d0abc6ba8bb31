import type { EntityManager } from "@mikro-orm/postgresql";
import type { FilterQuery } from "@mikro-orm/core";
import { BizError, InputError } from "../../core/errors";
import { isUuid } from "../../db/addressing";
import { type ListPage, type ListQuery, pageWindow, parseOrdering } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { DomainAccess } from "../identity/access";
import { holds } from "../identity/access-rules";
import { audit } from "../audit/audit.service";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { findProblemInSet, managesProblemSets } from "../problem-sets/problem-sets.service";
import { Clarification } from "./clarification.entity";
import type {
  ClarificationAnnounceInput,
  ClarificationAnswerInput,
  ClarificationAskInput,
  ClarificationView,
} from "./clarifications.schemas";

/**
 * A set's clarifications (docs/contests.md "Clarifications"). Who holds `problemSet.clarify` (staff) reads and
 * answers every message; anyone else who sees the set reads their own questions, the answers sent to them,
 * and what is public (answers to all and announcements). One rule, `readableBy`, says so for the list, one
 * message and the live streams alike.
 */
export const clarifies = (access: DomainAccess) => holds(access, "problemSet.clarify");

/** The messages of `where` this caller may read. */
function readableBy(access: DomainAccess, where: Record<string, unknown>): FilterQuery<Clarification> {
  if (clarifies(access)) return where;
  const me = access.userId;
  return { ...where, $or: [{ public: true }, { kind: "question", author: me }, { kind: "answer", recipient: me }] };
}

const POPULATE = ["author", "replyTo", "replyTo.author"] as const;

/** The text as kept: trimmed, and refused (422, at the field) when nothing is left. */
function readText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new InputError(["body", "text"], "the text is empty: write something", "value_error.empty");
  return trimmed;
}

export async function listClarifications(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  query: ListQuery,
): Promise<ListPage<ClarificationView>> {
  const { offset, limit } = pageWindow(query);
  const where = readableBy(access, { domain: access.domainId, problemSet: set.id });
  const [rows, count] = await em.findAndCount(Clarification, where, {
    populate: POPULATE,
    orderBy: parseOrdering(query.ordering),
    offset,
    limit,
  });
  return { count, results: await viewsOf(em, access, rows) };
}

/** One message the caller may read; any other (another's question, another set's) does not exist for them. */
export async function getClarification(em: EntityManager, access: DomainAccess, set: ProblemSet, id: string) {
  const where = readableBy(access, { id, domain: access.domainId, problemSet: set.id });
  const found = await em.findOne(Clarification, where, { populate: POPULATE });
  if (!found) throw notFound();
  return (await viewsOf(em, access, [found]))[0];
}

const notFound = () => new BizError("Error", "clarification not found in this problem set");

/** The problem a message is about: one of the set's, as the caller may see it (ProblemNotFoundError otherwise). */
async function problemOf(em: EntityManager, access: DomainAccess, set: ProblemSet, ref?: string | null) {
  return ref === undefined || ref === null ? null : await findProblemInSet(em, access, set, ref);
}

/** A new message's row as the caller writes it (a question or an announcement): checked text, its problem. */
async function messageOf(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  input: { text: string; problem?: string | null },
) {
  const problem = await problemOf(em, access, set, input.problem);
  const text = readText(input.text);
  return { domain: access.domainId, problemSet: set.id, problem: problem?.id ?? null, author: access.userId, text };
}

/** A participant's question: seen by its asker and staff only, until staff answer it to all. Not audited. */
export async function askQuestion(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  input: ClarificationAskInput,
): Promise<ClarificationView> {
  const row = em.create(Clarification, { ...(await messageOf(em, access, set, input)), kind: "question" });
  await em.flush();
  return getClarification(em, access, set, row.id);
}

/**
 * Staff's answer to a question of this set: to its asker alone, or public (everyone reads it with the
 * question, without the asker's name). Several answers may follow one question. Audited, without the text:
 * a private answer may repeat what a student asked, and the message itself is kept in its table.
 */
export async function answerQuestion(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  questionId: string,
  input: ClarificationAnswerInput,
): Promise<ClarificationView> {
  const text = readText(input.text);
  const question = await em.findOne(
    Clarification,
    { id: questionId, domain: access.domainId, problemSet: set.id },
    { populate: ["author"] },
  );
  if (!question) throw notFound();
  if (question.kind !== "question") throw new BizError("Error", `a clarification's ${question.kind} is no question`);
  const open = input.public ?? false;
  const row = await em.transactional(async (tx) => {
    const answer = tx.create(Clarification, {
      domain: access.domainId,
      problemSet: set.id,
      problem: question.problem?.id ?? null,
      kind: "answer",
      author: access.userId,
      replyTo: question.id,
      recipient: open ? null : (question.author?.id ?? null),
      public: open,
      text,
    });
    record(tx, access, set, "problem_set.clarification_answer", answer, question.author?.id ?? null);
    await tx.flush();
    return answer;
  });
  return getClarification(em, access, set, row.id);
}

/** An announcement to everyone who sees the set, about it or one of its problems. Audited, without the text. */
export async function announce(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  input: ClarificationAnnounceInput,
): Promise<ClarificationView> {
  const fields = await messageOf(em, access, set, input);
  const row = await em.transactional(async (tx) => {
    const message = tx.create(Clarification, { ...fields, kind: "announcement", public: true });
    record(tx, access, set, "problem_set.clarification_announce", message, null);
    await tx.flush();
    return message;
  });
  return getClarification(em, access, set, row.id);
}

/** The audit event of a staff message: which, about what, to whom; its text only as "there was one". */
function record(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  action: "problem_set.clarification_answer" | "problem_set.clarification_announce",
  message: Clarification,
  askerId: string | null,
) {
  audit(em, access, {
    action,
    target: { type: "problem_set", id: set.id },
    domainId: access.domainId,
    after: {
      clarificationId: message.id,
      replyToId: message.replyTo?.id ?? null,
      userId: askerId,
      problemId: message.problem?.id ?? null,
      public: message.public,
      text: message.text,
    },
  });
}

/**
 * The messages among `ids` (a live stream's burst) that this caller may read now, in sets they may see (and
 * only `problemSetId`'s when the stream is filtered to one set), oldest first.
 */
export async function readableClarifications(
  em: EntityManager,
  access: DomainAccess,
  ids: string[],
  problemSetId?: string,
): Promise<ClarificationView[]> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return [];
  const where: Record<string, unknown> = { id: { $in: wanted }, domain: access.domainId };
  if (problemSetId) where.problemSet = problemSetId;
  // A hidden set's messages are for those who see hidden sets, as the set itself is (findProblemSet).
  if (!managesProblemSets(access)) where.problemSet = { ...(problemSetId ? { id: problemSetId } : {}), hidden: false };
  const rows = await em.find(Clarification, readableBy(access, where), {
    populate: POPULATE,
    orderBy: { createdAt: "asc", id: "asc" },
  });
  return viewsOf(em, access, rows);
}

/** Messages as the caller reads them: the asker named to the asker and staff only; questions' answered flag. */
async function viewsOf(em: EntityManager, access: DomainAccess, rows: Clarification[]): Promise<ClarificationView[]> {
  const questions = rows.filter((row) => row.kind === "question").map((row) => row.id);
  const answered = new Set(
    questions.length === 0
      ? []
      : (await em.find(Clarification, { replyTo: { $in: questions } }, { fields: ["replyTo"] })).map(
          (answer) => answer.replyTo!.id,
        ),
  );
  const staff = clarifies(access);
  return rows.map((row) => {
    const asker = row.kind === "question" ? row.author : row.kind === "answer" ? row.replyTo?.author : null;
    const named = asker && (staff || asker.id === access.userId);
    return {
      id: row.id,
      problemSetId: row.problemSet.id,
      problemId: row.problem?.id ?? null,
      kind: row.kind,
      text: row.text,
      public: row.public,
      replyToId: row.replyTo?.id ?? null,
      question: row.replyTo?.text ?? null,
      userId: named ? asker.id : null,
      username: named ? asker.username : null,
      answered: answered.has(row.id),
      createdAt: isoTime(row.createdAt),
    };
  });
}
