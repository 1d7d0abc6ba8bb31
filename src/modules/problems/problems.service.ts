import { row } from "../../db/statements";
import { PAGE_LATERAL, problemSql } from "./problems.sql";
import type { ResourceRow, StandingRead } from "../identity/identity.sql";
import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { byUrlOrId, isUuid, urlSlugs } from "../../db/addressing";
import { findPage, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import { loadDomainAccess, type DomainAccess } from "../identity/access";
import { assertDomainVisible, assertPermitted, holds } from "../identity/access-rules";
import type { User } from "../users/user.entity";
import { contentAddress, contentTally } from "../domains/domain-content";
import { copyLatestConfig } from "../problem-configs/versions.service";
import { Problem } from "./problem.entity";
import { ProblemGroup } from "./problem-group.entity";
import type { ProblemCreateInput, ProblemDetailView, ProblemEditInput, ProblemView } from "./problems.schemas";
import { audit } from "../audit/audit.service";
import { assignGiven, auditedCreate, auditedDelete, auditedUpdate } from "../audit/audited";
import { pick } from "../audit/audit-fields";

const AUDITED = ["url", "title", "content", "hidden"] as const;

/** The problem page's read with the standing (auth.plugin's domainRead): the problem of the path. */
export function problemPageRead(params: Record<string, string>): StandingRead {
  const where = byUrlOrId(params.problem);
  return "id" in where
    ? { lateral: PAGE_LATERAL.id, values: [where.id] }
    : { lateral: PAGE_LATERAL.url, values: [where.url] };
}

/**
 * The problem page as PostgreSQL wrote it (JSON text, sent as it is: see okJson), with the caller's newest
 * record for it through the problem's own route, read with the standing (`page` null: no such problem). A
 * hidden problem does not exist for callers without `problem.viewHidden`, as in findProblem.
 */
export function problemPageOf(access: DomainAccess, row: ResourceRow): string {
  if (row.page === null || (row.hidden && !holds(access, "problem.viewHidden"))) throw problemNotFound();
  return row.page as string;
}

/**
 * A problem of the domain in the path, by url or id. A hidden problem does not exist for callers
 * without `problem.viewHidden` (the same error as a missing one, so hidden problems cannot be probed).
 */
export async function findProblem(em: EntityManager, access: DomainAccess, ref: string): Promise<Problem> {
  const where = byUrlOrId(ref);
  const found = await row<Record<string, unknown>>(em, problemSql("id" in where ? "id" : "url"), [
    "id" in where ? where.id : where.url,
    access.domainId,
  ]);
  const problem = found && em.map(Problem, found);
  if (!problem || (problem.hidden && !holds(access, "problem.viewHidden"))) throw problemNotFound();
  return problem;
}

const problemNotFound = () => new BizError("ProblemNotFoundError", "problem not found");

const slugs = urlSlugs(Problem, "problem of this domain");

export function listProblems(em: EntityManager, access: DomainAccess, query: ListQuery): Promise<ListPage<Problem>> {
  const where = holds(access, "problem.viewHidden") ? {} : { hidden: false };
  return findPage(em, Problem, { domain: access.domain, ...where }, query);
}

export async function createProblem(
  em: EntityManager,
  access: DomainAccess,
  input: ProblemCreateInput,
): Promise<Problem> {
  return em.transactional(async (tx) => {
    const problem = await addProblem(tx, access, {
      url: input.url,
      title: input.title,
      content: input.content ?? "",
      hidden: input.hidden ?? false,
      languages: [],
    });
    const what = { action: "problem.create", type: "problem", row: problem, fields: AUDITED } as const;
    return auditedCreate(tx, access, { ...what, domainId: access.domainId });
  });
}

type NewProblem = Pick<Problem, "title" | "content" | "hidden" | "languages"> & {
  url: string | undefined;
  /** The group of the problem it was cloned from; none gives it a group of its own. */
  group?: Problem["problemGroup"];
};

/** A new problem of the caller's domain, owned by the caller (created and cloned alike). */
async function addProblem(tx: EntityManager, access: DomainAccess, { url, group, ...fields }: NewProblem) {
  const address = await slugs.fresh(tx, { domain: access.domain }, url);
  return tx.create(Problem, {
    ...address,
    ...fields,
    domain: access.domain,
    owner: access.user,
    problemGroup: group ?? tx.create(ProblemGroup, {}),
  });
}

export async function updateProblem(em: EntityManager, access: DomainAccess, ref: string, input: ProblemEditInput) {
  const problem = await findProblem(em, access, ref);
  const what = { action: "problem.update", type: "problem", row: problem, fields: AUDITED } as const;
  return auditedUpdate(em, access, { ...what, domainId: access.domainId }, async () => {
    await slugs.change(em, { domain: access.domain }, problem, input.url);
    assignGiven(problem, input, ["title", "content", "hidden"]);
  });
}

/**
 * Deletes the problem. Its config versions stay (with no problem) for the records judged with them;
 * versions nothing refers to, and then blobs nothing refers to, are collected by `blob.collect`.
 */
export async function deleteProblem(em: EntityManager, access: DomainAccess, ref: string): Promise<void> {
  const problem = await findProblem(em, access, ref);
  const what = { action: "problem.delete", type: "problem", row: problem, fields: AUDITED } as const;
  await auditedDelete(em, access, { ...what, domainId: access.domainId }, Problem);
}

/**
 * Clones problems from another (or the same) domain. The caller must be able to see them where they
 * live: the source domain must be visible to them and grant `problem.view` and `problem.viewConfig`
 * (Horse checked only the target domain — a cross-tenant leak). Each clone gets title, content,
 * hidden flag, languages and the source's latest config version; all or nothing.
 */
export async function cloneProblems(
  em: EntityManager,
  access: DomainAccess,
  input: { fromDomain: string; problems: string[]; newGroup?: boolean },
): Promise<Problem[]> {
  const source = await loadDomainAccess(em, access.user, input.fromDomain);
  assertDomainVisible(source);
  assertPermitted(source, ["problem.view", "problem.viewConfig"]);
  const sameDomain = source.domain.id === access.domainId;
  return em.transactional(async (tx) => {
    const clones: Problem[] = [];
    for (const ref of input.problems) {
      const original = await findProblem(tx, source, ref);
      const clone = await addProblem(tx, access, {
        // Keep the source's slug across domains, unless it was only the source's id.
        url: sameDomain || isUuid(original.url) ? undefined : original.url,
        title: original.title,
        content: original.content,
        hidden: original.hidden,
        languages: [...original.languages],
        group: input.newGroup ? null : original.problemGroup,
      });
      await copyLatestConfig(tx, original, clone, access.user as User);
      audit(tx, access, {
        action: "problem.clone",
        target: { type: "problem", id: clone.id },
        domainId: access.domainId,
        after: { ...pick(clone, AUDITED), sourceProblemId: original.id, sourceDomainId: source.domain.id },
      });
      clones.push(clone);
    }
    await tx.flush();
    return clones;
  });
}

/** Every problem group id (Horse's `GET /problem_groups`). */
export async function listGroups(em: EntityManager, query: ListQuery): Promise<ListPage<{ id: string }>> {
  const { count, results } = await findPage(em, ProblemGroup, {}, query);
  return { count, results: results.map((group) => ({ id: group.id })) };
}

export function toProblemView(problem: Problem): ProblemView {
  return {
    ...contentAddress(problem),
    title: problem.title,
    hidden: problem.hidden,
    ...contentTally(problem),
    problemGroupId: problem.problemGroup?.id ?? null,
  };
}

export function toProblemDetail(problem: Problem): ProblemDetailView {
  return {
    ...toProblemView(problem),
    content: problem.content,
    createdAt: isoTime(problem.createdAt),
    updatedAt: isoTime(problem.updatedAt),
    languages: problem.languages ?? [],
  };
}
