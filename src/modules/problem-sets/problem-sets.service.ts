import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { byUrlOrId, urlSlugs } from "../../db/addressing";
import { findPage, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { DomainAccess } from "../identity/access";
import { holds } from "../identity/access-rules";
import { contentAddress, contentTally } from "../domains/domain-content";
import type { Problem } from "../problems/problem.entity";
import { findProblem } from "../problems/problems.service";
import { ProblemSet } from "./problem-set.entity";
import { ProblemSetProblem } from "./problem-set-problem.entity";
import { type OwnDates, parseWindow, windowFor, windowState } from "./problem-set-window";
import { ownDates, ownDatesOf } from "./problem-set-extensions.service";
import type { ProblemSetCreateInput, ProblemSetEditInput, ProblemSetView } from "./problem-sets.schemas";
import { LOCK_SET_SQL } from "./problem-sets.sql";
import { applyRules, rulesView } from "./problem-set-rules";
import { audit } from "../audit/audit.service";
import { assignGiven, auditedCreate, auditedDelete, auditedUpdate } from "../audit/audited";
import { PROBLEM_SET_FIELDS } from "../audit/audit-fields";

/** Managers (`problemSet.viewHidden`) see hidden sets and sets outside their time window. */
export const managesProblemSets = (access: DomainAccess) => holds(access, "problemSet.viewHidden");
const manages = managesProblemSets;

/** A set of the path's domain; a hidden set does not exist for those who may not see hidden sets, on every route. */
export async function findProblemSet(em: EntityManager, access: DomainAccess, ref: string): Promise<ProblemSet> {
  const set = await em.findOne(ProblemSet, { domain: access.domain, ...byUrlOrId(ref) });
  if (!set || (set.hidden && !manages(access))) throw new BizError("ProblemSetNotFoundError", "problem set not found");
  return set;
}

const slugs = urlSlugs(ProblemSet, "problem set of this domain");

export function listProblemSets(
  em: EntityManager,
  access: DomainAccess,
  query: ListQuery,
): Promise<ListPage<ProblemSet>> {
  const where = manages(access) ? {} : { hidden: false };
  return findPage(em, ProblemSet, { domain: access.domain, ...where }, query);
}

export async function createProblemSet(
  em: EntityManager,
  access: DomainAccess,
  input: ProblemSetCreateInput,
): Promise<ProblemSet> {
  const { id, url } = await slugs.fresh(em, { domain: access.domain }, input.url);
  const set = em.create(ProblemSet, {
    id,
    url,
    domain: access.domain,
    owner: access.user,
    title: input.title,
    content: input.content ?? "",
    hidden: input.hidden ?? false,
    scoreboardHidden: input.scoreboardHidden ?? false,
    ...parseWindow(input),
  });
  applyRules(set, input);
  return auditedCreate(em, access, {
    action: "problem_set.create",
    type: "problem_set",
    row: set,
    fields: PROBLEM_SET_FIELDS,
    domainId: access.domainId,
  });
}

export async function updateProblemSet(
  em: EntityManager,
  access: DomainAccess,
  ref: string,
  input: ProblemSetEditInput,
) {
  const set = await findProblemSet(em, access, ref);
  const what = { action: "problem_set.update", type: "problem_set", row: set, fields: PROBLEM_SET_FIELDS } as const;
  return auditedUpdate(em, access, { ...what, domainId: access.domainId }, async () => {
    Object.assign(set, parseWindow(input, set));
    await slugs.change(em, { domain: access.domain }, set, input.url);
    assignGiven(set, input, ["title", "content", "hidden", "scoreboardHidden"]);
    applyRules(set, input);
  });
}

export async function deleteProblemSet(em: EntityManager, access: DomainAccess, ref: string): Promise<void> {
  const set = await findProblemSet(em, access, ref);
  const what = { action: "problem_set.delete", type: "problem_set", row: set, fields: PROBLEM_SET_FIELDS } as const;
  await auditedDelete(em, access, { ...what, domainId: access.domainId }, ProblemSet);
}

/**
 * The problems a caller sees in a set, in order: none before the set unlocks (for non-managers),
 * and hidden problems only with `problem.viewHidden`.
 */
export async function visibleProblems(em: EntityManager, access: DomainAccess, set: ProblemSet): Promise<Problem[]> {
  if (!manages(access) && windowState(set) === "before") return [];
  const links = await em.find(
    ProblemSetProblem,
    { problemSet: set },
    { populate: ["problem"], orderBy: { position: "asc" } },
  );
  const problems = links.map((link) => link.problem as unknown as Problem);
  return holds(access, "problem.viewHidden") ? problems : problems.filter((p) => !p.hidden);
}

/** A problem through a set: it must be in the set, visible, and the set open to the caller. */
export async function findProblemInSet(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  ref: string,
): Promise<Problem> {
  const problem = await findProblem(em, access, ref);
  if (!(await em.count(ProblemSetProblem, { problemSet: set, problem })))
    throw new BizError("ProblemNotFoundError", "the problem is not in this problem set");
  if (!manages(access) && windowState(set) === "before") {
    throw new BizError("ProblemNotFoundError", `the problem set opens at ${isoTime(set.unlockAt!)}`);
  }
  return problem;
}

/**
 * Whether a submission through the set is accepted now, and whether it is late, by the caller's own
 * window (their extension's times where they have one): refused from `lockAt` on, late from `dueAt` on.
 * (Before `unlockAt`, findProblemInSet already refused.) Managers may always submit, to test the set.
 */
export async function submissionWindow(em: EntityManager, access: DomainAccess, set: ProblemSet) {
  if (manages(access)) return { late: false };
  const window = windowFor(set, await ownDates(em, set, access.userId));
  const state = windowState(window);
  if (state === "locked")
    throw new BizError("Error", `the problem set is locked since ${isoTime(window.lockAt!)}: no more submissions`);
  return { late: state === "late" };
}

/** Horse's list insert: null appends; an index inserts before it; negative counts from the end. */
function insertAt<T>(items: T[], item: T, position: number | null | undefined): T[] {
  const at =
    position === null || position === undefined
      ? items.length
      : position < 0
        ? Math.max(0, items.length + position)
        : Math.min(position, items.length);
  return [...items.slice(0, at), item, ...items.slice(at)];
}

/**
 * Rewrites the set's order under a lock on the set's row, so concurrent edits cannot interleave
 * positions; the audit event (the order before and after) is written in the same transaction.
 */
async function reorder(
  em: EntityManager,
  access: DomainAccess,
  action: "add_problem" | "move_problem" | "remove_problem",
  set: ProblemSet,
  change: (problemIds: string[]) => string[],
): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(LOCK_SET_SQL, [set.id]);
    const links = await tx.find(ProblemSetProblem, { problemSet: set.id }, { orderBy: { position: "asc" } });
    const before = links.map((l) => (l.problem as unknown as Problem).id);
    const ids = change(before);
    audit(tx, access, {
      action: `problem_set.${action}`,
      target: { type: "problem_set", id: set.id },
      domainId: access.domainId,
      before: { problems: before },
      after: { problems: ids },
    });
    await tx.nativeDelete(ProblemSetProblem, { problemSet: set.id });
    for (const [position, problemId] of ids.entries()) {
      tx.create(ProblemSetProblem, { problemSet: set.id, problem: problemId, position });
    }
    await tx.flush();
  });
}

export async function addProblemToSet(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  input: { problem: string; position?: number | null },
): Promise<void> {
  const problem = await findProblem(em, access, input.problem);
  await reorder(em, access, "add_problem", set, (ids) => {
    if (ids.includes(problem.id)) throw new BizError("IntegrityError", "problem already added");
    return insertAt(ids, problem.id, input.position);
  });
}

export async function moveProblemInSet(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  ref: string,
  position: number | null | undefined,
): Promise<void> {
  const problem = await findProblem(em, access, ref);
  await reorder(em, access, "move_problem", set, (ids) => {
    if (!ids.includes(problem.id)) throw new BizError("IntegrityError", "problem not added");
    return insertAt(
      ids.filter((id) => id !== problem.id),
      problem.id,
      position,
    );
  });
}

/** Takes a problem out of the set; answers its id. */
export async function removeProblemFromSet(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  ref: string,
): Promise<string> {
  const problem = await findProblem(em, access, ref);
  await reorder(em, access, "remove_problem", set, (ids) => {
    if (!ids.includes(problem.id)) throw new BizError("IntegrityError", "problem not added");
    return ids.filter((id) => id !== problem.id);
  });
  return problem.id;
}

/** The sets as their caller sees them: with the caller's own due and lock times where they have an extension. */
export async function problemSetViewsFor(em: EntityManager, access: DomainAccess, list: ProblemSet[]) {
  const ids = list.map((set) => set.id);
  const own = await ownDatesOf(em, access.userId, ids);
  return list.map((set) => toProblemSetView(set, own.get(set.id)));
}

/** A set's view; with `own`, that student's window and `extended` (writes answer with the set's own). */
export function toProblemSetView(set: ProblemSet, own?: OwnDates): ProblemSetView {
  const window = windowFor(set, own);
  return {
    ...contentAddress(set),
    title: set.title,
    content: set.content,
    hidden: set.hidden,
    scoreboardHidden: set.scoreboardHidden,
    ...rulesView(set),
    dueAt: isoTime(window.dueAt),
    lockAt: isoTime(window.lockAt),
    unlockAt: isoTime(window.unlockAt),
    extended: own !== undefined,
    ...contentTally(set),
  };
}
