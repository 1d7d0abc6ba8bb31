import { randomUUID } from "node:crypto";
import type { SiteRole } from "./permissions";

/** Signs and verifies HS256 JWTs. Implemented by @elysiajs/jwt in the HTTP layer (auth.plugin.ts). */
export interface TokenCodec {
  sign(claims: Record<string, unknown>): Promise<string>;
  /** The payload of a valid, unexpired HS256 token, or null for anything else. */
  verify(token: string): Promise<Record<string, unknown> | null>;
}

export type TokenCategory = "user" | "oauth";

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
  const registered = (ttlSeconds: number) => ({ sub: user.id, iat: now, nbf: now, jti: randomUUID(), exp: now + ttlSeconds, csrf: randomUUID() });
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Verifies a token and checks it has the shape of an access token; wrong-type or partial tokens are null. */
export async function verifyAccessToken(codec: TokenCodec, token: string): Promise<AccessClaims | null> {
  const claims = await codec.verify(token);
  if (!claims || claims.type !== "access") return null;
  const valid =
    typeof claims.sub === "string" &&
    typeof claims.jti === "string" &&
    typeof claims.exp === "number" &&
    typeof claims.csrf === "string" &&
    (claims.category === "user" || claims.category === "oauth") &&
    typeof claims.username === "string" &&
    (claims.category === "oauth" || UUID.test(claims.sub));
  return valid ? (claims as unknown as AccessClaims) : null;
}

export async function verifyRefreshToken(codec: TokenCodec, token: string): Promise<RefreshClaims | null> {
  const claims = await codec.verify(token);
  if (!claims || claims.type !== "refresh") return null;
  const valid = typeof claims.sub === "string" && typeof claims.csrf === "string" && typeof claims.jti === "string";
  return valid ? (claims as unknown as RefreshClaims) : null;
}
