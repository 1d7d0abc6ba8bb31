import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okPage } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import * as roles from "./roles.service";
import { DomainParams } from "./domains.schemas";
import { announceRecordChange, memberChange } from "../record-events/record-events.bus";
import {
  DomainRoleCreate,
  DomainRoleDetailResp,
  DomainRoleEdit,
  DomainRoleListResp,
  DomainRoleResp,
  RoleParams,
} from "./roles.schemas";

export function rolesRoutes(deps: AppDeps) {
  return new Elysia({ name: "roles-routes", prefix: "/domains/:domain/roles", detail: { tags: ["domain"] } })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ em, access, query }) => okPage(await roles.listRoles(em, access, query.ordering), roles.toRoleView),
      {
        domainPermission: "general.view",
        params: DomainParams,
        query: t.Object({ ordering: t.Optional(t.String()) }),
        response: DomainRoleListResp,
        detail: { operationId: "v1_list_domain_roles", summary: "The roles of the domain (no paging)" },
      },
    )
    .post("", async ({ em, access, body }) => ok(roles.toRoleView(await roles.createRole(em, access, body))), {
      domainPermission: "general.edit",
      params: DomainParams,
      body: DomainRoleCreate,
      response: DomainRoleResp,
      detail: { operationId: "v1_create_domain_role", summary: "Create a custom role (never root, guest or judger)" },
    })
    .get(
      "/:role",
      async ({ em, access, params }) => ok(roles.toRoleDetail(await roles.getRole(em, access, params.role))),
      {
        domainPermission: "general.view",
        params: RoleParams,
        response: DomainRoleDetailResp,
        detail: { operationId: "v1_get_domain_role", summary: "One role by name" },
      },
    )
    .patch(
      "/:role",
      async ({ em, access, params, body }) => {
        const role = roles.toRoleView(await roles.updateRole(em, access, params.role, body));
        // Its holders may have become, or stopped being, participants: every feed of the domain looks again.
        await announceRecordChange(deps.jobs, deps.logger, access.domainId, memberChange());
        return ok(role);
      },
      {
        domainPermission: "general.edit",
        params: RoleParams,
        body: DomainRoleEdit,
        response: DomainRoleResp,
        detail: {
          operationId: "v1_update_domain_role",
          summary: "Change a role's permissions (the given flags are merged in)",
        },
      },
    )
    .delete(
      "/:role",
      async ({ em, access, params }) => {
        await roles.deleteRole(em, access, params.role);
        return ok({});
      },
      {
        domainPermission: "general.edit",
        params: RoleParams,
        response: EmptyResp,
        detail: {
          operationId: "v1_delete_domain_role",
          summary: "Delete a role nobody holds and no invitation grants",
        },
      },
    );
}
