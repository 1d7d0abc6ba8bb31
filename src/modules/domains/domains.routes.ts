import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okList, okPage } from "../../http/respond";
import { EmptyResp } from "../../http/schemas";
import * as domains from "./domains.service";
import {
  DomainCreate,
  DomainDetailResp,
  DomainEdit,
  DomainListQuery,
  DomainListResp,
  DomainParams,
  DomainResp,
  DomainTagListResp,
  DomainTransfer,
  GroupSearchQuery,
} from "./domains.schemas";

export function domainsRoutes(deps: AppDeps) {
  return new Elysia({ name: "domains-routes", prefix: "/domains", detail: { tags: ["domain"] } })
    .use(authPlugin(deps))
    .post(
      "",
      async ({ em, actor, body }) => ok(domains.toDomainView(await domains.createDomain(em, actor.user, body))),
      {
        sitePermission: "domain.create",
        body: DomainCreate,
        response: DomainResp,
        detail: {
          operationId: "v1_create_domain",
          summary: "Create a domain; the creator becomes its owner and a root member",
        },
      },
    )
    .get(
      "",
      async ({ em, actor, query }) => okPage(await domains.listDomainsOf(em, actor.user, query), domains.toDomainView),
      {
        auth: true,
        query: DomainListQuery,
        response: DomainListResp,
        detail: {
          operationId: "v1_list_domains",
          summary: "The domains the caller belongs to (filters: roles, groups)",
        },
      },
    )
    .get("/groups", async ({ em, actor, query }) => okList(await domains.searchGroups(em, actor.user, query.query)), {
      sitePermission: "domain.create",
      query: GroupSearchQuery,
      response: DomainTagListResp,
      detail: { operationId: "v1_search_domain_groups", summary: "Distinct domain groups containing the text" },
    })
    .get("/:domain", ({ access }) => ok(domains.viewDomain(access)), {
      domainAccess: true,
      params: DomainParams,
      response: DomainDetailResp,
      detail: {
        operationId: "v1_get_domain",
        summary: "A domain: in full for those who may view it, else its public card",
      },
    })
    .patch(
      "/:domain",
      async ({ em, access, body }) => ok(domains.toDomainView(await domains.updateDomain(em, access, body))),
      {
        domainPermission: { anyOf: ["general.edit", "site:domain.edit"] },
        params: DomainParams,
        body: DomainEdit,
        response: DomainResp,
        detail: {
          operationId: "v1_update_domain",
          summary: "Change a domain (changing its group needs site domain.edit)",
        },
      },
    )
    .delete(
      "/:domain",
      async ({ em, access }) => {
        await domains.deleteDomain(em, access);
        return ok({});
      },
      {
        domainPermission: "general.view",
        params: DomainParams,
        response: EmptyResp,
        detail: { operationId: "v1_delete_domain", summary: "Delete an empty domain (owner or site root)" },
      },
    )
    .post(
      "/:domain/transfer",
      async ({ em, access, body }) =>
        ok(domains.toDomainView(await domains.transferDomain(em, access, body.targetUser))),
      {
        domainPermission: "general.view",
        params: DomainParams,
        body: DomainTransfer,
        response: DomainResp,
        detail: {
          operationId: "v1_transfer_domain",
          summary: "Give the domain to another root member (owner or site root)",
        },
      },
    );
}
