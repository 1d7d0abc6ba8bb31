import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok, okPage } from "../../http/respond";
import { EmptyResp, PaginationQuery } from "../../http/schemas";
import * as invitations from "./invitations.service";
import { JoinLimiter } from "./join-limiter";
import { announceRecordChange, memberChange } from "../record-events/record-events.bus";
import { toUserWithDomainRole } from "./members.service";
import { UserWithDomainRoleResp } from "./members.schemas";
import { DomainParams } from "./domains.schemas";
import {
  DomainInvitationCreate,
  DomainInvitationEdit,
  DomainInvitationListResp,
  DomainInvitationResp,
  InvitationParams,
  JoinQuery,
} from "./invitations.schemas";

export function invitationsRoutes(deps: AppDeps) {
  const limiter = new JoinLimiter(deps.redis);
  return (
    new Elysia({ name: "invitations-routes", prefix: "/domains/:domain", detail: { tags: ["domain"] } })
      .use(authPlugin(deps))
      .get(
        "/invitations",
        async ({ em, access, query }) =>
          okPage(await invitations.listInvitations(em, access, query), invitations.toInvitationView),
        {
          domainPermission: "general.edit",
          params: DomainParams,
          query: t.Object(PaginationQuery),
          response: DomainInvitationListResp,
          detail: { operationId: "v1_list_domain_invitations", summary: "The domain's invitations" },
        },
      )
      .post(
        "/invitations",
        async ({ em, access, body }) =>
          ok(invitations.toInvitationView(await invitations.createInvitation(em, access, body))),
        {
          domainPermission: "general.edit",
          params: DomainParams,
          body: DomainInvitationCreate,
          response: DomainInvitationResp,
          detail: { operationId: "v1_create_domain_invitation", summary: "Create an invitation (never granting root)" },
        },
      )
      .get(
        "/invitations/:invitation",
        async ({ em, access, params }) =>
          ok(invitations.toInvitationView(await invitations.getInvitation(em, access, params.invitation))),
        {
          domainPermission: "general.edit",
          params: InvitationParams,
          response: DomainInvitationResp,
          detail: { operationId: "v1_get_domain_invitation", summary: "One invitation by url or id" },
        },
      )
      .patch(
        "/invitations/:invitation",
        async ({ em, access, params, body }) =>
          ok(invitations.toInvitationView(await invitations.updateInvitation(em, access, params.invitation, body))),
        {
          domainPermission: "general.edit",
          params: InvitationParams,
          body: DomainInvitationEdit,
          response: DomainInvitationResp,
          detail: { operationId: "v1_update_domain_invitation", summary: "Change an invitation (never to root)" },
        },
      )
      .delete(
        "/invitations/:invitation",
        async ({ em, access, params }) => {
          await invitations.deleteInvitation(em, access, params.invitation);
          return ok({});
        },
        {
          domainPermission: "general.edit",
          params: InvitationParams,
          response: EmptyResp,
          detail: { operationId: "v1_delete_domain_invitation", summary: "Delete an invitation" },
        },
      )
      // Any logged-in user with the code, hidden domain or not: the code is the proof.
      .post(
        "/join",
        async ({ em, access, query }) => {
          const membership = await invitations.joinDomain(em, access, query.invitationCode, limiter);
          // A new participant is a new team of the domain's contests: their feeds hear of it (awaited: members.routes.ts).
          await announceRecordChange(deps.jobs, deps.logger, access.domainId, memberChange(access.user.id));
          return ok(toUserWithDomainRole(access.user, membership, access.domainId));
        },
        {
          domainAccess: true,
          params: DomainParams,
          query: JoinQuery,
          response: UserWithDomainRoleResp,
          detail: { operationId: "v1_join_domain_by_invitation", summary: "Join the domain with an invitation code" },
        },
      )
  );
}
