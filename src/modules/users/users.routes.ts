import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import { UserIdOrMe } from "../../http/schemas";
import * as users from "./users.service";
import { UserDetailResp, UserEdit, UserPreviewResp, UserResetPassword } from "./users.schemas";

export function usersRoutes(deps: AppDeps) {
  return new Elysia({ name: "users-routes", prefix: "/users", detail: { tags: ["user"] } })
    .use(authPlugin(deps))
    .get("/me", ({ actor }) => ok(users.toUserDetail(actor.profile)), {
      auth: true,
      response: UserDetailResp,
      detail: { operationId: "v1_get_current_user", summary: "The caller's own profile" },
    })
    .patch(
      "/me",
      async ({ em, actor, body }) => ok(users.toUserDetail(await users.updateCurrentUser(em, actor.user, body))),
      {
        auth: true,
        body: UserEdit,
        response: UserDetailResp,
        detail: { operationId: "v1_update_current_user", summary: "Change the caller's own profile" },
      },
    )
    .patch(
      "/me/password",
      async ({ em, actor, body }) => ok(users.toUserDetail(await users.changePassword(em, actor.user, body))),
      {
        auth: true,
        body: UserResetPassword,
        response: UserDetailResp,
        detail: { operationId: "v1_change_password", summary: "Change (or set a first) password" },
      },
    )
    .get(
      "/:uid",
      async ({ em, actor, params }) => ok(users.toUserPreview(await users.getUser(em, actor.user, params.uid))),
      {
        auth: true,
        params: t.Object({ uid: UserIdOrMe }),
        response: UserPreviewResp,
        detail: {
          operationId: "v1_get_user",
          summary: "A user's public preview (never e-mail or other private fields)",
        },
      },
    );
}
