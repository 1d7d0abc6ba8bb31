import type { Cookie } from "elysia";
import type { Config } from "../../../settings/config";
import { InputError } from "../../../core/errors";
import type { IssuedTokens } from "../credentials/tokens";
import { clearSessionCookies, writeSessionCookies } from "./cookies";
import { ok } from "../../../http/respond";

export interface AuthResponseQuery {
  cookie?: boolean;
  responseType: "json" | "redirect";
  redirectUrl?: string;
}

interface ResponseContext {
  cookie: Record<string, Cookie<unknown>>;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/**
 * Where a `responseType=redirect` answer may send the browser: PUBLIC_URL's origin (the default) or
 * an origin listed in ALLOWED_REDIRECT_ORIGINS. Anything else would be an open redirect.
 * Checked before the endpoint does anything, so a refused target changes nothing.
 */
export function resolveRedirect(query: AuthResponseQuery, config: Config): string {
  const requested = query.redirectUrl?.trim();
  if (!requested) return `${config.publicUrl}/`;
  let target: URL;
  try {
    // Relative targets resolve against PUBLIC_URL; `//evil.example` resolves off-site and is refused below.
    target = new URL(requested, `${config.publicUrl}/`);
  } catch {
    throw new InputError(["query", "redirectUrl"], "invalid or missing URL scheme", "value_error.url");
  }
  const allowed = target.origin === config.publicUrl || config.allowedRedirectOrigins.includes(target.origin);
  if (!allowed || !["http:", "https:"].includes(target.protocol)) {
    throw new InputError(["query", "redirectUrl"], "redirect target is not an allowed origin", "value_error.url.host");
  }
  return target.toString();
}

/** Horse's "login response": cookies when asked, then the tokens as JSON or a 302. */
export function respondWithTokens(
  ctx: ResponseContext,
  tokens: IssuedTokens,
  query: AuthResponseQuery,
  config: Config,
) {
  const target = query.responseType === "redirect" ? resolveRedirect(query, config) : undefined;
  if (query.cookie !== false) writeSessionCookies(ctx.cookie, tokens, config);
  if (target) return redirectTo(ctx, target);
  return ok({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: tokens.tokenType });
}

export function respondLoggedOut(ctx: ResponseContext, query: AuthResponseQuery, config: Config) {
  const target = query.responseType === "redirect" ? resolveRedirect(query, config) : undefined;
  if (query.cookie !== false) clearSessionCookies(ctx.cookie, config);
  if (target) return redirectTo(ctx, target);
  return ok({});
}

function redirectTo(ctx: ResponseContext, target: string): null {
  ctx.set.status = 302;
  ctx.set.headers.location = target;
  return null;
}
