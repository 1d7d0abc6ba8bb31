import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError, permissionDenied } from "../../core/errors";
import { findPage, parseOrdering, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { DomainAccess } from "../identity/access";
import { isDomainRoot } from "../identity/access-rules";
import {
  DOMAIN_ROOT_ROLE,
  defaultUserPermissions,
  isReadOnlyDomainRole,
  normalizePermissionSet,
  permissionWords,
  permissionsBeyond,
  type DomainPermissionSet,
} from "../identity/permissions";
import { domainIdOf } from "./domain-content";
import { DomainRole } from "./domain-role.entity";
import { DomainUser } from "./domain-user.entity";
import { DomainInvitation } from "./domain-invitation.entity";
import type { DomainRoleDetailView, PermissionInput } from "./roles.schemas";
import { permissionFields, type AuditAction } from "../audit/audit-fields";
import { auditedCreate, auditedDelete, auditedUpdate, type Audited } from "../audit/audited";

async function findRole(em: EntityManager, access: DomainAccess, role: string): Promise<DomainRole> {
  const row = await em.findOne(DomainRole, { domain: access.domain, role });
  if (!row) throw new BizError("DomainRoleNotFoundError", `role "${role}" does not exist in this domain`);
  return row;
}

/** A role in the log: its name and each of its flags, so an edit shows only the flags it flipped. */
const audited = (access: DomainAccess, row: DomainRole, action: AuditAction): Audited<DomainRole, never> => ({
  action,
  type: "domain_role",
  row,
  fields: (role) => ({ role: role.role, ...permissionFields(normalizePermissionSet(role.permission)) }),
  domainId: access.domainId,
});

/** An editor who is not domain root cannot hand out a permission it does not hold itself. */
function assertNoEscalation(access: DomainAccess, wanted: DomainPermissionSet): void {
  if (isDomainRoot(access)) return;
  const [first] = permissionsBeyond(wanted, access.permissions);
  if (first) throw permissionDenied(...permissionWords(first));
}

export async function listRoles(
  em: EntityManager,
  access: DomainAccess,
  ordering?: string,
): Promise<ListPage<DomainRole>> {
  const results = await em.find(
    DomainRole,
    { domain: access.domain },
    { orderBy: parseOrdering(ordering ?? "created_at") },
  );
  return { count: results.length, results };
}

export function listAllRoles(em: EntityManager, query: ListQuery): Promise<ListPage<DomainRole>> {
  return findPage(em, DomainRole, {}, query);
}

export function getRole(em: EntityManager, access: DomainAccess, role: string): Promise<DomainRole> {
  return findRole(em, access, role);
}

export async function createRole(
  em: EntityManager,
  access: DomainAccess,
  input: { role: string; permission: PermissionInput },
): Promise<DomainRole> {
  if (isReadOnlyDomainRole(input.role))
    throw new BizError("DomainRoleReadOnlyError", `role "${input.role}" is built in and read-only`);
  if (await em.count(DomainRole, { domain: access.domain, role: input.role })) {
    throw new BizError("DomainRoleNotUniqueError", `role "${input.role}" already exists in this domain`);
  }
  const permission = normalizePermissionSet(input.permission, defaultUserPermissions());
  assertNoEscalation(access, permission);
  const row = em.create(DomainRole, { domain: access.domain, role: input.role, permission });
  return auditedCreate(em, access, audited(access, row, "domain_role.create"));
}

/** Merges the given flags into the stored set (Horse replaced it wholesale, unvalidated). `root` is always all-true. */
export async function updateRole(
  em: EntityManager,
  access: DomainAccess,
  role: string,
  input: { permission?: PermissionInput },
): Promise<DomainRole> {
  const row = await findRole(em, access, role);
  if (role === DOMAIN_ROOT_ROLE)
    throw new BizError("DomainRoleReadOnlyError", "the root role always holds every permission");
  if (input.permission === undefined) return row;
  const permission = normalizePermissionSet(input.permission, normalizePermissionSet(row.permission), false);
  assertNoEscalation(access, permission);
  return auditedUpdate(em, access, audited(access, row, "domain_role.update"), () => {
    row.permission = permission;
  });
}

/** A role still held by a member or granted by an invitation cannot go. */
export async function deleteRole(em: EntityManager, access: DomainAccess, role: string): Promise<void> {
  if (isReadOnlyDomainRole(role))
    throw new BizError("DomainRoleReadOnlyError", `role "${role}" is built in and read-only`);
  const row = await findRole(em, access, role);
  const [members, invitations] = await Promise.all([
    em.count(DomainUser, { domain: access.domain, role }),
    em.count(DomainInvitation, { domain: access.domain, role }),
  ]);
  if (members > 0) throw new BizError("DomainRoleUsedError", `role "${role}" is held by ${members} member(s)`);
  if (invitations > 0)
    throw new BizError("DomainRoleUsedError", `role "${role}" is granted by ${invitations} invitation(s)`);
  await auditedDelete(em, access, audited(access, row, "domain_role.delete"), DomainRole);
}

export function toRoleView(row: DomainRole) {
  return { id: row.id, domainId: domainIdOf(row), role: row.role, permission: normalizePermissionSet(row.permission) };
}

export function toRoleDetail(row: DomainRole): DomainRoleDetailView {
  return { ...toRoleView(row), createdAt: isoTime(row.createdAt), updatedAt: isoTime(row.updatedAt) };
}
