import { Elysia } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { okList } from "../../http/respond";
import { DomainParams } from "../domains/domains.schemas";
import * as audit from "./audit.service";
import { AuditEventListResp, AuditListQuery } from "./audit.schemas";

/** The audit log (extension): a domain's staff actions, and the whole site's for the site root. */
export function auditRoutes(deps: AppDeps) {
  return new Elysia({ name: "audit-routes", detail: { tags: ["audit"] } })
    .use(authPlugin(deps))
    .get(
      "/domains/:domain/audit",
      async ({ em, access, query }) => okList(await audit.listAuditEvents(em, access.domainId, query)),
      {
        // Whoever may manage the domain's members, roles and invitations (the `admin` role, domain root)
        // may read what its staff did; see docs/running-a-course.md "Audit log".
        domainPermission: "general.edit",
        params: DomainParams,
        query: AuditListQuery,
        response: AuditEventListResp,
        detail: {
          operationId: "v1_list_domain_audit_events",
          summary: "The domain's audit log, newest first (filters: action, actor) (extension)",
        },
      },
    )
    .get("/admin/audit", async ({ em, query }) => okList(await audit.listAuditEvents(em, null, query)), {
      siteRoot: true,
      query: AuditListQuery,
      response: AuditEventListResp,
      detail: {
        operationId: "v1_admin_list_audit_events",
        summary: "Every audit event of the site, newest first (filters: action, actor) (extension)",
      },
    });
}
