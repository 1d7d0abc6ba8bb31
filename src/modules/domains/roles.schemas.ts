import { t, type TSchema } from "elysia";
import { DateTime, Envelope, ListOf, Uuid } from "../../http/schemas";
import { DOMAIN_PERMISSION_DEFAULTS, DOMAIN_SCOPES } from "../identity/permissions";

const titles: Record<string, string> = {
  general: "GeneralPermission",
  problem: "ProblemPermission",
  problemSet: "ProblemSetPermission",
  record: "RecordPermission",
};

function groupSchema(scope: (typeof DOMAIN_SCOPES)[number], optionalFlags: boolean): TSchema {
  const flags = Object.fromEntries(
    Object.entries(DOMAIN_PERMISSION_DEFAULTS[scope]).map(([flag, fallback]) => [
      flag,
      optionalFlags ? t.Optional(t.Boolean()) : t.Boolean({ default: fallback }),
    ]),
  );
  return t.Object(flags, { title: titles[scope] });
}

/** Horse's `DomainPermission`: four groups of boolean flags (camelCase; snake_case accepted in). */
export const DomainPermissionSchema = t.Object(
  Object.fromEntries(DOMAIN_SCOPES.map((scope) => [scope, groupSchema(scope, false)])),
  { title: "DomainPermission" },
);

/** In: any subset of groups and flags; what is absent keeps its default (create) or stored value (edit). */
export const DomainPermissionInput = t.Object(
  Object.fromEntries(DOMAIN_SCOPES.map((scope) => [scope, t.Optional(groupSchema(scope, true))])),
  { title: "DomainPermission" },
);

export const RoleName = t.String({ minLength: 1, maxLength: 256 });

export const DomainRoleCreate = t.Object(
  { role: RoleName, permission: DomainPermissionInput },
  { title: "DomainRoleCreate" },
);
export const DomainRoleEdit = t.Object({ permission: t.Optional(DomainPermissionInput) }, { title: "DomainRoleEdit" });
export type PermissionInput = typeof DomainPermissionInput.static;

const roleFields = { id: Uuid, domainId: Uuid, role: t.String(), permission: DomainPermissionSchema };
export const DomainRoleSchema = t.Object(roleFields, { title: "DomainRole" });
export const DomainRoleDetail = t.Object(
  { ...roleFields, createdAt: DateTime, updatedAt: DateTime },
  { title: "DomainRoleDetail" },
);
export type DomainRoleDetailView = typeof DomainRoleDetail.static;

export const RoleParams = t.Object({ domain: t.String({ minLength: 1, maxLength: 256 }), role: RoleName });

export const DomainRoleResp = Envelope(DomainRoleSchema, "DomainRoleResp");
export const DomainRoleDetailResp = Envelope(DomainRoleDetail, "DomainRoleDetailResp");
export const DomainRoleListResp = Envelope(ListOf(DomainRoleSchema, "DomainRoleList"), "DomainRoleListResp");
