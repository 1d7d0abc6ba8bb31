import type { EntityManager } from "@mikro-orm/postgresql";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { BizError, HttpError } from "../../core/errors";
import { byUrlOrId, urlSlugs } from "../../db/addressing";
import { findPage, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import { readTimestamp } from "../../http/timestamps";
import type { DomainAccess } from "../identity/access";
import type { Domain } from "./domain.entity";
import { contentAddress } from "./domain-content";
import { DomainInvitation } from "./domain-invitation.entity";
import { DomainRole } from "./domain-role.entity";
import { DomainUser } from "./domain-user.entity";
import type { JoinLimiter } from "./join-limiter";
import type { DomainInvitationView, InvitationCreateInput, InvitationEditInput } from "./invitations.schemas";
import { assignGiven, auditedCreate, auditedDelete, auditedUpdate } from "../audit/audited";

// `code` is a secret: the audit log notes that it changed, never its value (audit-fields.ts).
const AUDITED = ["url", "code", "role", "expireAt"] as const;

function expiryOf(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  return readTimestamp(value, ["body", "expireAt"]);
}

async function assertRoleExists(em: EntityManager, domain: Domain, role: string): Promise<void> {
  if (!(await em.count(DomainRole, { domain, role })))
    throw new BizError("DomainRoleNotFoundError", `role "${role}" does not exist in this domain`);
}

async function assertCodeFree(em: EntityManager, domain: Domain, code: string, exceptId?: string): Promise<void> {
  const taken = await em.findOne(DomainInvitation, { domain, code }, { fields: ["id"] });
  if (taken && taken.id !== exceptId) throw new BizError("DomainInvitationBadRequestError", "code is already used");
}

const slugs = urlSlugs(DomainInvitation, "invitation of this domain");

async function findInvitation(em: EntityManager, access: DomainAccess, ref: string): Promise<DomainInvitation> {
  const invitation = await em.findOne(DomainInvitation, { domain: access.domain, ...byUrlOrId(ref) });
  if (!invitation) throw new BizError("DomainInvitationBadRequestError", "invitation not found");
  return invitation;
}

export function listInvitations(
  em: EntityManager,
  access: DomainAccess,
  query: ListQuery,
): Promise<ListPage<DomainInvitation>> {
  return findPage(em, DomainInvitation, { domain: access.domain }, query);
}

export function getInvitation(em: EntityManager, access: DomainAccess, ref: string): Promise<DomainInvitation> {
  return findInvitation(em, access, ref);
}

export async function createInvitation(
  em: EntityManager,
  access: DomainAccess,
  input: InvitationCreateInput,
): Promise<DomainInvitation> {
  const { domain } = access;
  const role = input.role ?? "user";
  const expireAt = expiryOf(input.expireAt);
  await assertRoleExists(em, domain, role);
  await assertCodeFree(em, domain, input.code);
  const { id, url } = await slugs.fresh(em, { domain }, input.url);
  const invitation = em.create(DomainInvitation, { id, domain, url, code: input.code, role, expireAt });
  return auditedCreate(em, access, {
    action: "domain_invitation.create",
    type: "domain_invitation",
    row: invitation,
    fields: AUDITED,
    domainId: domain.id,
  });
}

export async function updateInvitation(
  em: EntityManager,
  access: DomainAccess,
  ref: string,
  input: InvitationEditInput,
): Promise<DomainInvitation> {
  const invitation = await findInvitation(em, access, ref);
  const { domain } = access;
  const what = {
    action: "domain_invitation.update",
    type: "domain_invitation",
    row: invitation,
    fields: AUDITED,
  } as const;
  return auditedUpdate(em, access, { ...what, domainId: domain.id }, async () => {
    if (input.role !== undefined) await assertRoleExists(em, domain, input.role);
    if (input.code !== undefined) await assertCodeFree(em, domain, input.code, invitation.id);
    await slugs.change(em, { domain }, invitation, input.url);
    assignGiven(invitation, input, ["code", "role"]);
    if (input.expireAt !== undefined) invitation.expireAt = expiryOf(input.expireAt);
  });
}

export async function deleteInvitation(em: EntityManager, access: DomainAccess, ref: string): Promise<void> {
  const invitation = await findInvitation(em, access, ref);
  const what = {
    action: "domain_invitation.delete",
    type: "domain_invitation",
    row: invitation,
    fields: AUDITED,
  } as const;
  await auditedDelete(em, access, { ...what, domainId: access.domainId }, DomainInvitation);
}

/**
 * Joins the domain with an invitation code (any logged-in user, hidden domains too: the code is the
 * proof). Wrong codes count against the user; a repeated join is refused with Horse's error and never
 * creates a second membership, even when two requests race.
 */
export async function joinDomain(
  em: EntityManager,
  access: DomainAccess,
  code: string,
  limiter: JoinLimiter,
): Promise<DomainUser> {
  const { domain, user } = access;
  const wait = await limiter.reserve(user.id);
  if (wait > 0) throw new HttpError(429, `too many wrong invitation codes; try again in ${wait} s`);
  const invitation = await em.findOne(DomainInvitation, { domain, code });
  if (!invitation)
    throw new BizError("DomainInvitationBadRequestError", "invitation code is not valid for this domain");
  await limiter.giveBack(user.id);
  if (invitation.expireAt && invitation.expireAt.getTime() < Date.now())
    throw new BizError("DomainInvitationExpiredError", "the invitation has expired");
  if (access.membership)
    throw new BizError("UserAlreadyInDomainBadRequestError", "you are already a member of this domain");
  await assertRoleExists(em, domain, invitation.role);
  try {
    const membership = em.create(DomainUser, { domain, user, role: invitation.role });
    await em.flush();
    return membership;
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new BizError("UserAlreadyInDomainBadRequestError", "you are already a member of this domain");
    throw error;
  }
}

export function toInvitationView(invitation: DomainInvitation): DomainInvitationView {
  return {
    ...contentAddress(invitation),
    code: invitation.code,
    expireAt: isoTime(invitation.expireAt ?? null),
    role: invitation.role,
    createdAt: isoTime(invitation.createdAt),
    updatedAt: isoTime(invitation.updatedAt),
  };
}
