import { randomUUID } from "node:crypto";
import type { SiteRole } from "../permissions";

/** Signs and verifies HS256 JWTs. Implemented by @elysiajs/jwt in the HTTP layer (auth.plugin.ts). */
export interface TokenCodec {
  sign(claims: Record<string, unknown>): Promise<string>;
  /** The payload of a valid, unexpired HS256 token, or null for anything else. */
  verify(token: string): Promise<Record<string, unknown> | null>;
}

/** `user`: a session; `oauth`: a provider account not yet registered; empty: the OAuth login failed (seed §2.1). */
export type TokenCategory = "user" | "oauth" | "";

/** Seed §2.1 claims, plus Horse's `gravatar`, `isActive` and camelCase `oauthName` (read by the JOJ front end). */
export interface AccessClaims {
  sub: string;
  iat: number;
  nbf: number;
  jti: string;
  exp: number;
  type: "access";
  fresh: boolean;
  csrf: string;
  category: TokenCategory;
  username: string;
  email: string;
  student_id: string;
  real_name: string;
  role: SiteRole | null;
  oauth_name: string;
  oauthName: string;
  gravatar: string;
  isActive: boolean;
}

export interface RefreshClaims {
  sub: string;
  iat: number;
  nbf: number;
  jti: string;
  exp: number;
  type: "refresh";
  csrf: string;
  category: TokenCategory;
  oauth_name: string;
}

export interface TokenSubject {
  id: string;
  username: string;
  email: string;
  studentId: string;
  realName: string;
  gravatar: string;
  role: SiteRole;
  isActive: boolean;
}

export interface TokenLifetimes {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  tokenType: "bearer";
  /** The CSRF values bound to each token, for the double-submit cookies. */
  accessCsrf: string;
  refreshCsrf: string;
}

/** A user session: category `user`, fresh unless it comes from a refresh. */
export async function issueUserTokens(
  codec: TokenCodec,
  user: TokenSubject,
  lifetimes: TokenLifetimes,
  options: { fresh: boolean; oauthName?: string },
): Promise<IssuedTokens> {
  const now = Math.floor(Date.now() / 1000);
  const oauthName = options.oauthName ?? "";
  // The registered claims both tokens share; each token gets its own id, lifetime and CSRF value.
  const registered = (ttlSeconds: number) => ({
    sub: user.id,
    iat: now,
    nbf: now,
    jti: randomUUID(),
    exp: now + ttlSeconds,
    csrf: randomUUID(),
  });
  const access: AccessClaims = {
    ...registered(lifetimes.accessTokenTtlSeconds),
    type: "access",
    fresh: options.fresh,
    category: "user",
    username: user.username,
    email: user.email,
    student_id: user.studentId,
    real_name: user.realName,
    role: user.role,
    oauth_name: oauthName,
    oauthName,
    gravatar: user.gravatar,
    isActive: user.isActive,
  };
  const refresh: RefreshClaims = {
    ...registered(lifetimes.refreshTokenTtlSeconds),
    type: "refresh",
    category: "user",
    oauth_name: oauthName,
  };
  const [accessToken, refreshToken] = await Promise.all([codec.sign({ ...access }), codec.sign({ ...refresh })]);
  return { accessToken, refreshToken, tokenType: "bearer", accessCsrf: access.csrf, refreshCsrf: refresh.csrf };
}

/** Who a provider said the person is, for a token of category `oauth` (or, all empty, a failed login). */
export interface ProviderIdentity {
  accountId: string;
  accountName: string;
  email: string;
  studentId: string;
  realName: string;
}

/** How long a half-registered OAuth session lasts: long enough to fill in the register form. */
const OAUTH_SESSION_SECONDS = 3600;

/**
 * An access token for an OAuth login that has no user (category `oauth`: `sub` is the provider's
 * account id) or that failed (category empty). No refresh token: neither ever becomes a user session
 * except by registering.
 */
export async function issueProviderToken(
  codec: TokenCodec,
  oauthName: string,
  identity: ProviderIdentity | null,
): Promise<IssuedTokens> {
  const now = Math.floor(Date.now() / 1000);
  const access: AccessClaims = {
    sub: identity?.accountId ?? "",
    iat: now,
    nbf: now,
    jti: randomUUID(),
    exp: now + OAUTH_SESSION_SECONDS,
    csrf: randomUUID(),
    type: "access",
    fresh: true,
    category: identity ? "oauth" : "",
    username: identity?.accountName ?? "",
    email: identity?.email ?? "",
    student_id: identity?.studentId ?? "",
    real_name: identity?.realName ?? "",
    role: null,
    oauth_name: oauthName,
    oauthName,
    gravatar: identity?.email ?? "",
    isActive: false,
  };
  return {
    accessToken: await codec.sign({ ...access }),
    refreshToken: "",
    tokenType: "bearer",
    accessCsrf: access.csrf,
    refreshCsrf: "",
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Verifies a token and checks it has the shape of an access token; wrong-type or partial tokens are null. */
export async function verifyAccessToken(codec: TokenCodec, token: string): Promise<AccessClaims | null> {
  const claims = await codec.verify(token);
  if (claims?.type !== "access") return null;
  const valid =
    typeof claims.sub === "string" &&
    typeof claims.jti === "string" &&
    typeof claims.exp === "number" &&
    typeof claims.csrf === "string" &&
    (claims.category === "user" || claims.category === "oauth" || claims.category === "") &&
    typeof claims.username === "string" &&
    (claims.category !== "user" || UUID.test(claims.sub));
  return valid ? (claims as unknown as AccessClaims) : null;
}

export async function verifyRefreshToken(codec: TokenCodec, token: string): Promise<RefreshClaims | null> {
  const claims = await codec.verify(token);
  if (claims?.type !== "refresh") return null;
  const valid = typeof claims.sub === "string" && typeof claims.csrf === "string" && typeof claims.jti === "string";
  return valid ? (claims as unknown as RefreshClaims) : null;
}
