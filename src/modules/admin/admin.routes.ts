import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okList, okPage } from "../../http/respond";
import { UserIdOrMe } from "../../http/schemas";
import * as users from "../users/users.service";
import { UserDetailResp, UserListResp } from "../users/users.schemas";
import * as admin from "./admin.service";
import * as domains from "../domains/domains.service";
import * as roles from "../domains/roles.service";
import { DomainListResp } from "../domains/domains.schemas";
import { DomainRoleListResp } from "../domains/roles.schemas";
import {
  AdminListQuery,
  AdminUserDomainsQuery,
  AuthTokensWithLakefsResp,
  JudgerCreate,
  JudgerDetailListResp,
} from "./admin.schemas";

/** The site administration API: site root only (Horse's router-level rule). */
export function adminRoutes(deps: AppDeps) {
  const { config, presence } = deps;
  return new Elysia({ name: "admin-routes", prefix: "/admin", detail: { tags: ["admin"] } })
    .use(authPlugin(deps))
    .get("/users", async ({ em, query }) => okPage(await users.listUsers(em, query), users.toUserView), {
      siteRoot: true,
      query: AdminListQuery,
      response: UserListResp,
      detail: { operationId: "v1_admin_list_users", summary: "All users (ordering: created_at, updated_at)" },
    })
    .post(
      "/judgers",
      async ({ em, tokens, body, actor }) => ok(await admin.createJudger(em, tokens, config, body, actor)),
      {
        siteRoot: true,
        body: JudgerCreate,
        response: AuthTokensWithLakefsResp,
        detail: {
          operationId: "v1_admin_create_judger",
          summary: "Create a judger account; returns its tokens and a non-expiring access key",
        },
      },
    )
    .get(
      "/judgers",
      async ({ em, query }) => okList(await admin.listJudgers(em, presence, config.judgerAliveSeconds, query)),
      {
        siteRoot: true,
        query: AdminListQuery,
        response: JudgerDetailListResp,
        detail: {
          operationId: "v1_admin_list_judgers",
          summary: "Judger accounts, with whether each was seen recently",
        },
      },
    )
    .get("/domain_roles", async ({ em, query }) => okPage(await roles.listAllRoles(em, query), roles.toRoleView), {
      siteRoot: true,
      query: AdminListQuery,
      response: DomainRoleListResp,
      detail: { operationId: "v1_admin_list_domain_roles", summary: "The roles of every domain" },
    })
    .get(
      "/:uid/domains",
      async ({ em, actor, params, query }) => {
        const user = await users.getUser(em, actor.user, params.uid);
        return okPage(await domains.listDomainsOf(em, user, { ...query, roles: query.role }), domains.toDomainView);
      },
      {
        siteRoot: true,
        params: t.Object({ uid: UserIdOrMe }),
        query: AdminUserDomainsQuery,
        response: DomainListResp,
        detail: {
          operationId: "v1_admin_list_user_domains",
          summary: "The domains a user belongs to (filters: role, groups)",
        },
      },
    )
    .get(
      "/:uid",
      async ({ em, actor, params }) => ok(users.toUserDetail(await users.getUser(em, actor.user, params.uid))),
      {
        siteRoot: true,
        params: t.Object({ uid: UserIdOrMe }),
        response: UserDetailResp,
        detail: { operationId: "v1_admin_get_user", summary: "A user's full profile (`me` allowed)" },
      },
    );
}
