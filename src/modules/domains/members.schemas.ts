import { t } from "elysia";
import { Envelope, ListOf, UserIdOrMe, Uuid } from "../../http/schemas";
import { userDetailFields } from "../users/users.schemas";
import { DomainPermissionSchema } from "./roles.schemas";

export const UserWithDomainRole = t.Object(
  {
    id: Uuid,
    username: t.String(),
    gravatar: t.String({ default: "" }),
    domainId: t.Nullable(Uuid),
    domainRole: t.Nullable(t.String()),
  },
  { title: "UserWithDomainRole" },
);
export type UserWithDomainRoleView = typeof UserWithDomainRole.static;

export const UserDetailWithDomainRole = t.Object(
  { ...userDetailFields, domainId: t.Nullable(Uuid), domainRole: t.Nullable(t.String()) },
  { title: "UserDetailWithDomainRole" },
);
export type UserDetailWithDomainRoleView = typeof UserDetailWithDomainRole.static;

export const DomainUserAdd = t.Object(
  {
    user: t.String({ description: "'me' or id of the user" }),
    role: t.Optional(t.String({ minLength: 1, maxLength: 256, default: "user" })),
  },
  { title: "DomainUserAdd" },
);

/** Unlike Horse, an absent role changes nothing (Horse's default demoted to `user`). */
export const DomainUserUpdate = t.Object(
  { role: t.Optional(t.String({ minLength: 1, maxLength: 256 })) },
  { title: "DomainUserUpdate" },
);

export const DomainUserPermission = t.Object(
  { domainId: Uuid, userId: Uuid, role: t.String(), permission: DomainPermissionSchema },
  { title: "DomainUserPermission" },
);

export const MemberParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  user: UserIdOrMe,
});

export const CandidateQuery = t.Object({
  query: t.String({ minLength: 2, maxLength: 256 }),
  ordering: t.Optional(t.String()),
});

export const UserWithDomainRoleResp = Envelope(UserWithDomainRole, "UserWithDomainRoleResp");
export const UserWithDomainRoleListResp = Envelope(
  ListOf(UserWithDomainRole, "UserWithDomainRoleList"),
  "UserWithDomainRoleListResp",
);
export const UserDetailWithDomainRoleResp = Envelope(UserDetailWithDomainRole, "UserDetailWithDomainRoleResp");
export const UserDetailWithDomainRoleListResp = Envelope(
  ListOf(UserDetailWithDomainRole, "UserDetailWithDomainRoleList"),
  "UserDetailWithDomainRoleListResp",
);
export const DomainUserPermissionResp = Envelope(DomainUserPermission, "DomainUserPermissionResp");
