import type { Cookie } from "elysia";
import type { Config } from "../../../settings/config";
import type { IssuedTokens } from "../credentials/tokens";

/** Cookie names of seed §5.5. */
export const COOKIE = {
  access: "access_token",
  refresh: "refresh_token",
  csrfAccess: "csrf_access_token",
  csrfRefresh: "csrf_refresh_token",
} as const;

type CookieJar = Record<string, Cookie<unknown>>;

function isLocalhost(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/** Secure except in development and on a localhost PUBLIC_URL (browsers refuse Secure over plain http). */
export function secureCookies(config: Config): boolean {
  return config.mode === "production" && !isLocalhost(config.publicUrl);
}

/**
 * Sets the session cookies: the tokens HttpOnly, and with CSRF protection on, the readable
 * double-submit values. Empty tokens are never written (Horse's rule).
 */
export function writeSessionCookies(cookie: CookieJar, tokens: IssuedTokens, config: Config): void {
  const base = { path: "/", sameSite: "lax" as const, secure: secureCookies(config) };
  const access = { ...base, maxAge: config.accessTokenTtlSeconds };
  const refresh = { ...base, maxAge: config.refreshTokenTtlSeconds };
  if (tokens.accessToken) cookie[COOKIE.access].set({ value: tokens.accessToken, httpOnly: true, ...access });
  if (tokens.refreshToken) cookie[COOKIE.refresh].set({ value: tokens.refreshToken, httpOnly: true, ...refresh });
  if (!config.csrfProtection) return;
  if (tokens.accessToken) cookie[COOKIE.csrfAccess].set({ value: tokens.accessCsrf, httpOnly: false, ...access });
  if (tokens.refreshToken) cookie[COOKIE.csrfRefresh].set({ value: tokens.refreshCsrf, httpOnly: false, ...refresh });
}

export function clearSessionCookies(cookie: CookieJar, config: Config): void {
  for (const name of Object.values(COOKIE)) {
    cookie[name].set({
      value: "",
      path: "/",
      maxAge: 0,
      expires: new Date(0),
      sameSite: "lax",
      secure: secureCookies(config),
    });
  }
}
