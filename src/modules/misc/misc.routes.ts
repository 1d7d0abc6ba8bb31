import { Elysia, t } from "elysia";
import type { AppDeps } from "../../http/app-deps";
import { authPlugin } from "../identity/http/auth.plugin";
import { ok } from "../../http/respond";
import { HttpError } from "../../core/errors";
import { EmptyResp } from "../../http/schemas";
import { JWTAccessTokenResp } from "../identity/sessions/auth.schemas";

export const VersionSchema = t.Object({ version: t.String(), git: t.String() }, { title: "Version" });

export function miscRoutes(deps: AppDeps) {
  return (
    new Elysia({ name: "misc-routes", detail: { tags: ["miscellaneous"] } })
      .use(authPlugin(deps))
      // Horse answers this one bare, without the envelope.
      .get("/version", () => deps.version, {
        response: VersionSchema,
        detail: { operationId: "v1_version", summary: "The running version and git commit" },
      })
      .get(
        "/jwt_decoded",
        ({ actor }) => {
          if (!actor.claims) throw new HttpError(400, "access-key credentials carry no token to decode");
          return ok(actor.claims);
        },
        {
          auth: true,
          response: JWTAccessTokenResp,
          detail: { operationId: "v1_jwt_decoded", summary: "The caller's decoded access token" },
        },
      )
      .get(
        "/test/report",
        () => {
          throw new TestReportError("error report test: this endpoint fails on purpose");
        },
        {
          response: EmptyResp,
          detail: {
            operationId: "v1_test_error_report",
            summary: "Fails on purpose, to check that unexpected errors are logged and reported",
          },
        },
      )
  );
}

class TestReportError extends Error {
  override name = "TestReportError";
}
