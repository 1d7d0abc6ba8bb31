import type { EntityManager } from "@mikro-orm/postgresql";
import type { Config } from "../config";
import { HttpError, unauthorized } from "../errors";
import { verifyAccessToken, type AccessClaims, type TokenCodec } from "../auth/tokens";
import { parseBasicCredential } from "../auth/access-keys";
import * as users from "../modules/users/users.service";
import * as accessKeys from "../modules/auth/access-keys.service";
import type { User } from "../modules/users/user.entity";
import { COOKIE } from "./cookies";

export type Via = "bearer" | "cookie" | "access-key";

/** The caller of a request, read fresh from the database: a demotion or deactivation applies at once. */
export interface Actor {
  user: User;
  /** Null for access-key callers, which carry no token. */
  claims: AccessClaims | null;
  via: Via;
}

export interface AuthInput {
  request: Request;
  em: EntityManager;
  cookie: Record<string, { value?: unknown }>;
}

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Where the access credential of a request is: an `Authorization` header wins over cookies. */
export function readAccessCredential(request: Request, cookie: AuthInput["cookie"]):
  | { kind: "bearer" | "cookie"; token: string }
  | { kind: "access-key"; keyId: string; secret: string }
  | { kind: "malformed" }
  | null {
  const header = request.headers.get("authorization");
  if (header !== null && header.trim() !== "") {
    const bearer = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (bearer) return { kind: "bearer", token: bearer[1] };
    const basic = parseBasicCredential(header);
    return basic ? { kind: "access-key", ...basic } : { kind: "malformed" };
  }
  const token = cookie[COOKIE.access]?.value;
  return typeof token === "string" && token !== "" ? { kind: "cookie", token } : null;
}

/**
 * Resolves the actor or throws 401. Only `user`-category sessions count as logged in: a half-registered
 * OAuth session (`oauth`) may finish registering and nothing else.
 */
export async function authenticate(input: AuthInput, codec: TokenCodec, config: Config): Promise<Actor> {
  const credential = readAccessCredential(input.request, input.cookie);
  if (!credential) throw unauthorized();
  if (credential.kind === "malformed") throw unauthorized("Bad Authorization header. Expected value 'Bearer <JWT>'");
  if (credential.kind === "access-key") {
    const user = await accessKeys.authenticateAccessKey(input.em, credential.keyId, credential.secret);
    if (!user) throw unauthorized("Invalid access key");
    return { user, claims: null, via: "access-key" };
  }
  const claims = await verifyAccessToken(codec, credential.token);
  if (!claims) throw unauthorized("Invalid or expired token");
  if (claims.category !== "user") throw unauthorized();
  if (credential.kind === "cookie") checkCsrf(input.request, claims.csrf, config);
  const user = await users.findActiveUser(input.em, claims.sub);
  if (!user) throw unauthorized();
  return { user, claims, via: credential.kind };
}

/**
 * Double-submit CSRF for cookie sessions, on when CSRF_PROTECTION is (production by default). The JOJ
 * web front end never sends `X-CSRF-Token`, so a request whose `Origin` (or, without one,
 * `Sec-Fetch-Site: same-origin`) proves it comes from PUBLIC_URL passes; a cross-site request needs
 * the header, matching the token's `csrf` claim.
 */
export function checkCsrf(request: Request, expected: string, config: Config): void {
  if (!config.csrfProtection || !UNSAFE_METHODS.has(request.method)) return;
  const header = request.headers.get("x-csrf-token");
  if (header !== null) {
    if (header !== expected) throw new HttpError(401, "CSRF double submit tokens do not match");
    return;
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin === config.publicUrl) return;
  } else if (request.headers.get("sec-fetch-site") === "same-origin") {
    return;
  }
  throw new HttpError(401, "Missing CSRF Token");
}

/**
 * The half-registered OAuth session of a request (a token of category `oauth`, from the header or,
 * CSRF-checked, the cookie), or null. Only registration reads it; everywhere else it is not a login.
 */
export async function oauthSessionOf(input: AuthInput, codec: TokenCodec, config: Config): Promise<AccessClaims | null> {
  const credential = readAccessCredential(input.request, input.cookie);
  if (!credential || (credential.kind !== "bearer" && credential.kind !== "cookie")) return null;
  const claims = await verifyAccessToken(codec, credential.token);
  if (!claims || claims.category !== "oauth") return null;
  if (credential.kind === "cookie") checkCsrf(input.request, claims.csrf, config);
  return claims;
}
