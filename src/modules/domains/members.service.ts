import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { pageWindow, parseOrdering, type ListPage, type ListQuery } from "../../db/listing";
import { accessFor, type DomainAccess } from "../identity/access";
import { assertDomainRoot, assertMayChangeOwnerMembership } from "../identity/access-rules";
import { DOMAIN_ROOT_ROLE, type DomainPermissionSet } from "../identity/permissions";
import type { User } from "../users/user.entity";
import { resolveUserRef, toUserDetail } from "../users/users.service";
import { DomainUser } from "./domain-user.entity";
import { DomainRole } from "./domain-role.entity";
import type { UserDetailWithDomainRoleView, UserWithDomainRoleView } from "./members.schemas";
import { audit } from "../audit/audit.service";

export interface Member {
  user: User;
  membership: DomainUser;
}

async function assertRoleExists(em: EntityManager, access: DomainAccess, role: string): Promise<void> {
  const found = await em.count(DomainRole, { domain: access.domain, role });
  if (found === 0) throw new BizError("DomainRoleNotFoundError", `role "${role}" does not exist in this domain`);
}

async function findMember(em: EntityManager, access: DomainAccess, userRef: string): Promise<Member> {
  const user = await resolveUserRef(em, access.user, userRef);
  const membership = await em.findOne(DomainUser, { domain: access.domain, user });
  if (!membership) throw new BizError("DomainUserNotFoundError", "the user is not a member of this domain");
  return { user, membership };
}

export async function listMembers(
  em: EntityManager,
  access: DomainAccess,
  query: ListQuery,
): Promise<ListPage<Member>> {
  const { offset, limit } = pageWindow(query);
  const [rows, count] = await em.findAndCount(
    DomainUser,
    { domain: access.domain },
    {
      populate: ["user"],
      orderBy: parseOrdering(query.ordering),
      offset,
      limit,
    },
  );
  return { count, results: rows.map((membership) => ({ user: membership.user as unknown as User, membership })) };
}

export function getMember(em: EntityManager, access: DomainAccess, userRef: string): Promise<Member> {
  return findMember(em, access, userRef);
}

/** Adds a member; granting `root` needs domain root, and the role must exist (so `judger` never can). */
export async function addMember(
  em: EntityManager,
  access: DomainAccess,
  input: { user: string; role?: string },
): Promise<Member> {
  const role = input.role ?? "user";
  if (role === DOMAIN_ROOT_ROLE) assertDomainRoot(access, "only a domain root can add a root member");
  const user = await resolveUserRef(em, access.user, input.user);
  if (await em.count(DomainUser, { domain: access.domain, user })) {
    throw new BizError("UserAlreadyInDomainBadRequestError", "the user is already a member of this domain");
  }
  await assertRoleExists(em, access, role);
  const membership = em.create(DomainUser, { domain: access.domain, user, role });
  audit(em, access, {
    action: "domain_user.add",
    target: { type: "user", id: user.id },
    domainId: access.domainId,
    after: { username: user.username, role },
  });
  await em.flush();
  return { user, membership };
}

/**
 * Changes a member's role. An empty body changes nothing. Granting or taking away `root` needs domain
 * root, and the owner's own membership is the owner's (or a site root's) alone to change.
 */
export async function updateMember(
  em: EntityManager,
  access: DomainAccess,
  userRef: string,
  input: { role?: string },
): Promise<Member> {
  const member = await findMember(em, access, userRef);
  if (input.role === undefined || input.role === member.membership.role) return member;
  assertMayChangeOwnerMembership(access, member.user.id);
  if (input.role === DOMAIN_ROOT_ROLE || member.membership.role === DOMAIN_ROOT_ROLE) {
    assertDomainRoot(access, "only a domain root can grant or take away the root role");
  }
  await assertRoleExists(em, access, input.role);
  audit(em, access, {
    action: "domain_user.update",
    target: { type: "user", id: member.user.id },
    domainId: access.domainId,
    before: { role: member.membership.role },
    after: { role: input.role },
  });
  member.membership.role = input.role;
  await em.flush();
  return member;
}

/** Removes a member; answers the removed user's id. */
export async function removeMember(em: EntityManager, access: DomainAccess, userRef: string): Promise<string> {
  const member = await findMember(em, access, userRef);
  assertMayChangeOwnerMembership(access, member.user.id);
  if (member.membership.role === DOMAIN_ROOT_ROLE)
    assertDomainRoot(access, "only a domain root can remove a root member");
  await em.transactional(async (tx) => {
    audit(tx, access, {
      action: "domain_user.remove",
      target: { type: "user", id: member.user.id },
      domainId: access.domainId,
      before: { username: member.user.username, role: member.membership.role },
    });
    await tx.nativeDelete(DomainUser, { id: member.membership.id });
  });
  return member.user.id;
}

/**
 * A user's effective permissions in the domain. Anyone logged in may ask about themselves (`me`):
 * the join page of an invitation link shows a non-member their guest permissions.
 */
export async function memberPermission(
  em: EntityManager,
  access: DomainAccess,
  userRef: string,
): Promise<{ userId: string; role: string; permission: DomainPermissionSet }> {
  if (userRef === "me" || userRef.toLowerCase() === access.userId) {
    return { userId: access.userId, role: access.role, permission: access.permissions };
  }
  const member = await findMember(em, access, userRef);
  const theirs = await accessFor(em, member.user, access.domain);
  return { userId: member.user.id, role: theirs.role, permission: theirs.permissions };
}

export function toUserWithDomainRole(
  user: User,
  membership: DomainUser | null,
  domainId: string,
): UserWithDomainRoleView {
  return {
    id: user.id,
    username: user.username,
    gravatar: user.gravatar,
    domainId: membership ? domainId : null,
    domainRole: membership?.role ?? null,
  };
}

export function toUserDetailWithDomainRole(
  user: User,
  membership: DomainUser | null,
  domainId: string,
): UserDetailWithDomainRoleView {
  return { ...toUserDetail(user), domainId: membership ? domainId : null, domainRole: membership?.role ?? null };
}
