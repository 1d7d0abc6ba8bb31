import type { EntityManager } from "@mikro-orm/postgresql";
import type { Config } from "../../../settings/config";
import { HttpError, unauthorized } from "../../../core/errors";
import { verifyAccessToken, type AccessClaims, type TokenCodec } from "../credentials/tokens";
import { parseBasicCredential } from "../credentials/access-keys";
import type { User } from "../../users/user.entity";
import type { UserProfile } from "../../users/users.service";
import type { SiteRole } from "../permissions";
import type { Principal } from "../access";
import { once } from "../../../runtime/once";
import { COOKIE } from "./cookies";
import { parseCookie } from "elysia/cookies";

export type Via = "bearer" | "cookie" | "access-key";

/** The caller of a request, read fresh from the database: a demotion or deactivation applies at once. */
export interface Actor {
  /** The caller's user, a managed entity made on first use (see DomainAccess). */
  readonly user: User;
  /** What the caller's own pages show, without an entity when none was made (users.service UserProfile). */
  readonly profile: UserProfile;
  userId: string;
  siteRole: SiteRole;
  /** Null for access-key callers, which carry no token. */
  claims: AccessClaims | null;
  via: Via;
  /** The client address (client-ip.ts, TRUSTED_PROXIES honoured): what the audit log records. Found on first use. */
  readonly ip: string;
}

export interface AuthInput {
  request: Request;
  em: EntityManager;
  cookie: Record<string, { value?: unknown }>;
}

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The cookies readAccessCredential reads, parsed as Elysia parses them (numbers and JSON turned into
 * values), or none when a non-blank `Authorization` header wins over them.
 */
export async function credentialCookies(request: Request): Promise<AuthInput["cookie"]> {
  const header = request.headers.get("authorization");
  if (header !== null && header.trim() !== "") return {};
  const cookies = request.headers.get("cookie");
  return cookies ? parseCookie({ headers: {} }, cookies) : {};
}

/** Where the access credential of a request is: an `Authorization` header wins over cookies. */
export function readAccessCredential(
  request: Request,
  cookie: AuthInput["cookie"],
):
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
 * Who the credential says is calling, not yet read from the database: an access key's id and secret
 * (checked where the key is read: access-keys.service, acceptKey), or the user id of a verified
 * token. Throws 401. Only `user`-category
 * sessions count as logged in: a half-registered OAuth session (`oauth`) may finish registering and
 * nothing else.
 */
export type Caller =
  | { via: "access-key"; keyId: string; secret: string }
  | { via: "bearer" | "cookie"; claims: AccessClaims; userId: string };

export async function identify(input: AuthInput, codec: TokenCodec, config: Config): Promise<Caller> {
  const credential = readAccessCredential(input.request, input.cookie);
  if (!credential) throw unauthorized();
  if (credential.kind === "malformed") throw unauthorized("Bad Authorization header. Expected value 'Bearer <JWT>'");
  // An access key is checked where its user is read: with the domain standing when the route has one.
  if (credential.kind === "access-key")
    return { via: "access-key", keyId: credential.keyId, secret: credential.secret };
  const claims = await verifyAccessToken(codec, credential.token);
  if (!claims) throw unauthorized("Invalid or expired token");
  if (claims.category !== "user") throw unauthorized();
  if (credential.kind === "cookie") checkCsrf(input.request, claims.csrf, config);
  return { via: credential.kind, claims, userId: claims.sub };
}

/** The actor of an identified caller whose user row was read (null: gone or deactivated, a 401). */
export function actorFrom(caller: Caller, who: Principal | null, ip: () => string): Actor {
  if (!who) throw caller.via === "access-key" ? unauthorized("Invalid access key") : unauthorized();
  const address = once(ip);
  return {
    userId: who.id,
    siteRole: who.role,
    claims: caller.via === "access-key" ? null : caller.claims,
    via: caller.via,
    get user() {
      return who.entity();
    },
    get profile() {
      return who.profile();
    },
    get ip() {
      return address();
    },
  };
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
export async function oauthSessionOf(
  input: AuthInput,
  codec: TokenCodec,
  config: Config,
): Promise<AccessClaims | null> {
  const credential = readAccessCredential(input.request, input.cookie);
  if (!credential || (credential.kind !== "bearer" && credential.kind !== "cookie")) return null;
  const claims = await verifyAccessToken(codec, credential.token);
  if (claims?.category !== "oauth") return null;
  if (credential.kind === "cookie") checkCsrf(input.request, claims.csrf, config);
  return claims;
}
