import { Elysia, t } from "elysia";
import type { AppDeps } from "../../../http/app-deps";
import { BizError, HttpError } from "../../../core/errors";
import { authPlugin } from "../http/auth.plugin";
import { clientIp } from "../../../http/client-ip";
import { secureCookies } from "../http/cookies";
import { ok } from "../../../http/respond";
import { resolveRedirect, respondWithTokens } from "../http/session-response";
import { AuthTokensResp } from "../sessions/auth.schemas";
import { enabledProviders } from "./providers/registry";
import { beginLogin, finishLogin, readPendingLogin, STATE_COOKIE, STATE_SECONDS } from "./oauth.service";
import { AuthorizeQuery, CallbackQuery, OAuth2ClientListResp, ProviderParams, RedirectResp } from "./oauth.schemas";

const REDIRECT = { 302: t.Null({ description: "redirect (responseType=redirect)" }) };

/** OAuth2 login (seed §5.2): the provider list, the authorize step and the provider's callback. */
export function oauthRoutes(deps: AppDeps) {
  const { config } = deps;
  const providers = enabledProviders(config);
  const providerOf = (name: string) => {
    const provider = providers.get(name);
    if (!provider) throw new HttpError(400, `unknown OAuth2 client "${name}"; GET /auth/oauth2 lists the enabled ones`);
    return provider;
  };
  // Sent back only to the callback, only by the browser that started the login, for ten minutes.
  const stateCookie = {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: secureCookies(config),
    path: "/api/v1/auth/oauth2",
  };
  return new Elysia({ name: "oauth-routes", prefix: "/auth/oauth2", detail: { tags: ["auth"] } })
    .use(authPlugin(deps))
    .get(
      "",
      () => {
        const results = [...providers.values()].map((p) => ({
          oauthName: p.name,
          displayName: p.displayName,
          icon: p.icon,
        }));
        return ok({ count: results.length, results });
      },
      {
        response: OAuth2ClientListResp,
        detail: { operationId: "v1_list_oauth2", summary: "The enabled OAuth2 login services" },
      },
    )
    .get(
      "/:oauth2/authorize",
      async ({ tokens, params, query, cookie, set }) => {
        const provider = providerOf(params.oauth2);
        const intent = {
          cookie: query.cookie !== false,
          responseType: query.responseType,
          redirectUrl: resolveRedirect(query, config),
        };
        const scopes = query.scopes === undefined ? [] : [query.scopes].flat();
        const { url, stateToken } = await beginLogin(tokens, provider, intent, scopes).catch((error: unknown) => {
          throw new BizError(
            "Error",
            `the ${provider.displayName} login cannot start: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
        cookie[STATE_COOKIE].set({ value: stateToken, maxAge: STATE_SECONDS, ...stateCookie });
        if (query.responseType === "redirect") {
          set.status = 302;
          set.headers.location = url;
          return null;
        }
        return ok({ redirectUrl: url });
      },
      {
        params: ProviderParams,
        query: AuthorizeQuery,
        response: { 200: RedirectResp, ...REDIRECT },
        detail: {
          operationId: "v1_oauth_authorize",
          summary: "Start an OAuth2 login: the provider's URL (JSON) or a 302 to it; binds the login to this browser",
        },
      },
    )
    .get(
      "/:oauth2/callback",
      async ({ em, tokens, params, query, cookie, set, request, server }) => {
        const provider = providerOf(params.oauth2);
        const pending = await readPendingLogin(tokens, cookie[STATE_COOKIE].value as string | undefined, provider.name);
        cookie[STATE_COOKIE].set({ value: "", maxAge: 0, expires: new Date(0), ...stateCookie });
        if (!pending)
          throw new HttpError(
            400,
            `this browser has no pending ${provider.displayName} login (it expired, was used, or was started ` +
              `elsewhere): start again`,
          );
        const issued = await finishLogin(
          { em, redis: deps.redis, codec: tokens, lifetimes: config, logger: deps.logger },
          provider,
          pending,
          query,
          clientIp(request, server, config.trustedProxies),
        );
        return respondWithTokens({ cookie, set }, issued, pending.intent, config);
      },
      {
        params: ProviderParams,
        query: CallbackQuery,
        response: { 200: AuthTokensResp, ...REDIRECT },
        detail: {
          hide: true,
          operationId: "v1_oauth_callback",
          summary: "The provider's redirect back (not in Horse's OpenAPI)",
        },
      },
    );
}
