import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okList, okPage } from "../../http/respond";
import { EmptyResp, PaginationQuery } from "../../http/schemas";
import { assertMayReadPermissionsOf } from "../identity/access-rules";
import * as members from "./members.service";
import { searchCandidates } from "./candidates.service";
import { DomainParams } from "./domains.schemas";
import { announceRecordChange, memberChange } from "../record-events/record-events.bus";
import {
  CandidateQuery,
  DomainUserAdd,
  DomainUserPermissionResp,
  DomainUserUpdate,
  MemberParams,
  UserDetailWithDomainRoleListResp,
  UserDetailWithDomainRoleResp,
  UserWithDomainRoleListResp,
  UserWithDomainRoleResp,
} from "./members.schemas";

export function membersRoutes(deps: AppDeps) {
  // A contest's teams are the domain's participants: its feeds hear of each change. Awaited (it never fails, and
  // waits at most the bus's batching window): a feed resumed after the answer sends a removed team's deletion.
  const teamsChanged = (domainId: string, userId: string) =>
    announceRecordChange(deps.jobs, deps.logger, domainId, memberChange(userId));
  return new Elysia({ name: "members-routes", prefix: "/domains/:domain", detail: { tags: ["domain"] } })
    .use(authPlugin(deps))
    .get(
      "/users",
      async ({ em, access, query }) =>
        okPage(await members.listMembers(em, access, query), (m) =>
          members.toUserWithDomainRole(m.user, m.membership, access.domainId),
        ),
      {
        domainPermission: "general.view",
        params: DomainParams,
        query: t.Object(PaginationQuery),
        response: UserWithDomainRoleListResp,
        detail: { operationId: "v1_list_domain_users", summary: "The members of the domain" },
      },
    )
    .post(
      "/users",
      async ({ em, access, body }) => {
        const m = await members.addMember(em, access, body);
        await teamsChanged(access.domainId, m.user.id);
        return ok(members.toUserDetailWithDomainRole(m.user, m.membership, access.domainId));
      },
      {
        domainPermission: "general.edit",
        params: DomainParams,
        body: DomainUserAdd,
        response: UserDetailWithDomainRoleResp,
        detail: { operationId: "v1_add_domain_user", summary: "Add a member (granting root needs domain root)" },
      },
    )
    .get(
      "/users/:user",
      async ({ em, access, params }) => {
        const m = await members.getMember(em, access, params.user);
        return ok(members.toUserWithDomainRole(m.user, m.membership, access.domainId));
      },
      {
        domainPermission: "general.view",
        params: MemberParams,
        response: UserWithDomainRoleResp,
        detail: { operationId: "v1_get_domain_user", summary: "One member (`me` or a user id)" },
      },
    )
    .patch(
      "/users/:user",
      async ({ em, access, params, body }) => {
        const m = await members.updateMember(em, access, params.user, body);
        await teamsChanged(access.domainId, m.user.id);
        return ok(members.toUserDetailWithDomainRole(m.user, m.membership, access.domainId));
      },
      {
        domainPermission: "general.edit",
        params: MemberParams,
        body: DomainUserUpdate,
        response: UserDetailWithDomainRoleResp,
        detail: { operationId: "v1_update_domain_user", summary: "Change a member's role" },
      },
    )
    .delete(
      "/users/:user",
      async ({ em, access, params }) => {
        await teamsChanged(access.domainId, await members.removeMember(em, access, params.user));
        return ok({});
      },
      {
        domainPermission: "general.edit",
        params: MemberParams,
        response: EmptyResp,
        detail: { operationId: "v1_remove_domain_user", summary: "Remove a member" },
      },
    )
    .get(
      "/users/:user/permission",
      async ({ em, access, params }) => {
        assertMayReadPermissionsOf(access, params.user);
        const result = await members.memberPermission(em, access, params.user);
        return ok({ domainId: access.domainId, ...result });
      },
      {
        domainAccess: true,
        params: MemberParams,
        response: DomainUserPermissionResp,
        detail: {
          operationId: "v1_get_domain_user_permission",
          summary: "A user's effective permissions in the domain (`me`: anyone)",
        },
      },
    )
    .get(
      "/candidates",
      async ({ em, access, query }) => {
        const results = await searchCandidates(em, access, query.query, query.ordering);
        return okList({ count: results.length, results });
      },
      {
        domainPermission: "general.edit",
        params: DomainParams,
        query: CandidateQuery,
        response: UserDetailWithDomainRoleListResp,
        detail: {
          operationId: "v1_search_domain_candidates",
          summary: "Users matching a name (or an exact e-mail / student id), at most 10",
        },
      },
    );
}
