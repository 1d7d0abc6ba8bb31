import { Elysia, t } from "elysia";
import type { AppDeps } from "../../../http/app-deps";
import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError, unauthorized } from "../../../core/errors";
import { identityKey } from "../credentials/names";
import { RateLimiter } from "../../../http/rate-limit";
import { LoginLimits } from "./login-limits";
import { bodyLimitsOf, parseBody } from "../../../http/body-limits";
import { issueUserTokens, verifyRefreshToken } from "../credentials/tokens";
import { registerWithOAuth } from "../oauth/oauth.service";
import { authPlugin } from "../http/auth.plugin";
import { checkCsrf, oauthSessionOf } from "../http/authenticate";
import { clientIp } from "../../../http/client-ip";
import { COOKIE } from "../http/cookies";
import { resolveRedirect, respondLoggedOut, respondWithTokens } from "../http/session-response";
import { EmptyResp } from "../../../http/schemas";
import * as auth from "./auth.service";
import { AuthQuery, AuthTokensResp, LoginForm, UserCreate } from "./auth.schemas";

const REDIRECT = { 302: t.Null({ description: "redirect to `redirectUrl` (responseType=redirect)" }) };

const bearerOf = (request: Request) =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1];
const cookieText = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

export function authRoutes(deps: AppDeps) {
  const { config } = deps;
  const lifetimes = config;
  const rates = config.rateLimits;
  const limiter = new RateLimiter(deps.redis, deps.logger);
  const limits = bodyLimitsOf(config);

  const loginLimits = new LoginLimits(deps.redis, rates, deps.logger);

  /** A login within the limits (login-limits.ts): the attempt is reserved before its hash, settled after. */
  async function limitedLogin(em: EntityManager, login: string, password: string, ip: string) {
    const account = identityKey(login.trim());
    const ticket = await loginLimits.reserve(account, ip);
    try {
      const user = await auth.loginWithPassword(em, login, password, ip);
      await ticket.settle(true);
      return user;
    } catch (error) {
      if (error instanceof BizError && error.code === "UsernamePasswordError") await ticket.settle(false);
      throw error;
    }
  }

  return (
    new Elysia({ name: "auth-routes", prefix: "/auth", detail: { tags: ["auth"] } })
      .use(authPlugin(deps))
      .post(
        "/register",
        async ({ em, tokens, body, query, request, server, cookie, set }) => {
          resolveRedirect(query, config);
          const ip = clientIp(request, server, config.trustedProxies);
          await limiter.take(`register-ip:${ip}`, rates.registrationsPerIp, "registrations from this address");
          if (body.oauth_name || body.oauth_account_id) {
            const claims = await oauthSessionOf({ request, em, cookie }, tokens, config);
            const user = await registerWithOAuth(em, claims, body, ip);
            return respondWithTokens(
              { cookie, set },
              await issueUserTokens(tokens, user, lifetimes, { fresh: true, oauthName: body.oauth_name! }),
              query,
              config,
            );
          }
          const user = await auth.registerWithPassword(em, body, ip);
          return respondWithTokens({ cookie, set }, await auth.startSession(tokens, user, lifetimes), query, config);
        },
        {
          query: AuthQuery,
          // No session to check first: the body is read (strictly, within its limit) at once.
          parse: ({ request, contentType }) => parseBody(request, contentType, limits),
          body: UserCreate,
          response: { 200: AuthTokensResp, ...REDIRECT },
          detail: {
            operationId: "v1_register",
            summary:
              "Register with username, e-mail and password, or finish an OAuth login (oauth_name, oauth_account_id " +
              "+ the oauth token); the first user becomes site root",
          },
        },
      )
      .post(
        "/login",
        async ({ em, tokens, body, query, request, server, cookie, set }) => {
          resolveRedirect(query, config);
          const user = await limitedLogin(
            em,
            body.username,
            body.password,
            clientIp(request, server, config.trustedProxies),
          );
          return respondWithTokens({ cookie, set }, await auth.startSession(tokens, user, lifetimes), query, config);
        },
        {
          query: AuthQuery,
          parse: ({ request, contentType }) => parseBody(request, contentType, limits),
          body: LoginForm,
          type: "application/x-www-form-urlencoded",
          response: { 200: AuthTokensResp, ...REDIRECT },
          detail: { operationId: "v1_login", summary: "Password login (form fields username and password)" },
        },
      )
      // Horse's rule: logging out needs a valid session, and a cookie session its CSRF check, so that
      // another site cannot log a user out. A session that already expired is logged out anyway.
      .post("/logout", ({ query, cookie, set }) => respondLoggedOut({ cookie, set }, query, config), {
        auth: true,
        query: AuthQuery,
        response: { 200: EmptyResp, ...REDIRECT },
        detail: { operationId: "v1_logout", summary: "Log out: delete the session cookies" },
      })
      .get(
        "/token",
        async ({ tokens, query, request, cookie, set }) => {
          resolveRedirect(query, config);
          const held = await auth.heldTokens(tokens, {
            header: bearerOf(request),
            accessCookie: cookieText(cookie[COOKIE.access].value),
            refreshCookie: cookieText(cookie[COOKIE.refresh].value),
          });
          const issued = {
            accessToken: held.access.token,
            refreshToken: held.refresh.token,
            tokenType: "bearer" as const,
            accessCsrf: held.access.csrf,
            refreshCsrf: held.refresh.csrf,
          };
          return respondWithTokens({ cookie, set }, issued, query, config);
        },
        {
          query: AuthQuery,
          response: { 200: AuthTokensResp, ...REDIRECT },
          detail: {
            operationId: "v1_get_token",
            summary: "The tokens held in the cookies (or header); empty strings when there are none",
          },
        },
      )
      .post(
        "/refresh",
        async ({ em, tokens, query, request, cookie, set }) => {
          resolveRedirect(query, config);
          const header = bearerOf(request);
          const token = header ?? cookieText(cookie[COOKIE.refresh].value);
          const claims = token ? await verifyRefreshToken(tokens, token) : null;
          if (!claims) throw unauthorized("JWT Format Error");
          if (!header) checkCsrf(request, claims.csrf, config);
          const issued = await auth.refreshSession(em, tokens, claims, lifetimes);
          if (!issued) throw unauthorized();
          return respondWithTokens({ cookie, set }, issued, query, config);
        },
        {
          query: AuthQuery,
          response: { 200: AuthTokensResp, ...REDIRECT },
          detail: {
            operationId: "v1_refresh",
            summary: "New access and refresh tokens (fresh: false) from a refresh token",
          },
        },
      )
  );
}
