import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../../core/errors";
import { hashPassword, verifyPassword } from "../credentials/passwords";
import type { SiteRole } from "../permissions";
import { displayForm, EMAIL_RULE, identityKey, isEmailAddress, isUsername, USERNAME_RULE } from "../credentials/names";
import {
  issueUserTokens,
  verifyAccessToken,
  verifyRefreshToken,
  type IssuedTokens,
  type RefreshClaims,
  type TokenCodec,
  type TokenLifetimes,
} from "../credentials/tokens";
import { User } from "../../users/user.entity";
import { findActiveUser } from "../../users/users.service";
import type { UserCreateInput } from "./auth.schemas";
import { FIRST_USER_LOCK_SQL } from "../identity.sql";

// Serialises registrations so that exactly one first user becomes root, however many arrive at once.
const FIRST_USER_LOCK = 0x4a4f4a01;

export interface NewAccount {
  username: string;
  email: string;
  password: string;
  role: SiteRole;
  ip: string;
}

/** Password registration (seed §5.4): username, e-mail and password, checked in Horse's order. */
export async function registerWithPassword(em: EntityManager, input: UserCreateInput, ip: string): Promise<User> {
  if (!input.password) throw new BizError("UserRegisterError", "password not provided");
  if (!input.username) throw new BizError("UserRegisterError", "username not provided");
  if (!input.email) throw new BizError("UserRegisterError", "email not provided");
  const { username, email, password } = input;
  return em.transactional((tx) => createFirstOrUser(tx, { username, email, password, ip }));
}

/**
 * Creates a person inside the caller's transaction. The first *person* becomes site root: judger
 * accounts (the built-in judge makes one before anybody registers) never count.
 */
export async function createFirstOrUser(tx: EntityManager, account: Omit<NewAccount, "role">): Promise<User> {
  // Serialised, so that exactly one first user becomes root however many register at once.
  // em.execute (not getConnection().execute) runs on the transaction's own connection.
  await tx.execute(FIRST_USER_LOCK_SQL, [FIRST_USER_LOCK]);
  const first = (await tx.count(User, { role: { $ne: "judger" } })) === 0;
  return createAccount(tx, { ...account, role: first ? "root" : "user" });
}

/**
 * Creates a user inside the caller's transaction. Taken names are business errors that tell the user
 * what to change; the unique indexes still catch a concurrent duplicate (mapped to IntegrityError).
 */
export async function createAccount(em: EntityManager, account: NewAccount): Promise<User> {
  // Names that did not come through a request schema (an OAuth profile, a factory) meet the same rule.
  if (!isUsername(account.username)) throw new BizError("UserRegisterError", USERNAME_RULE);
  if (!isEmailAddress(account.email)) throw new BizError("UserRegisterError", EMAIL_RULE);
  await assertAvailable(em, account.username, account.email);
  const user = em.create(User, {
    username: displayForm(account.username),
    usernameLower: identityKey(account.username),
    email: displayForm(account.email),
    emailLower: identityKey(account.email),
    role: account.role,
    isActive: true,
    registerIp: account.ip,
    loginIp: account.ip,
    hashedPassword: account.password
      ? await hashPassword(account.password, { group: `register ${account.ip}`, member: account.ip })
      : "",
  });
  await em.flush();
  return user;
}

async function assertAvailable(em: EntityManager, username: string, email: string): Promise<void> {
  const [byName, byEmail] = await Promise.all([
    em.count(User, { usernameLower: identityKey(username) }),
    em.count(User, { emailLower: identityKey(email) }),
  ]);
  if (byName > 0) throw new BizError("UserRegisterError", "username is already taken");
  if (byEmail > 0) throw new BizError("UserRegisterError", "email is already registered");
}

/**
 * Password login by username or e-mail, compared by identity key (case and width folded). One message for every
 * failure, and the
 * same work whether or not the account exists, so the answer never tells which accounts exist.
 */
export async function loginWithPassword(em: EntityManager, login: string, password: string, ip: string): Promise<User> {
  const key = identityKey(login.trim());
  const user = await em.findOne(User, key.includes("@") ? { emailLower: key } : { usernameLower: key });
  const valid = await verifyPassword(password, user ? user.hashedPassword : null, {
    group: `login ${key}`,
    member: ip,
  });
  if (!user || !valid || !user.isActive) throw new BizError("UsernamePasswordError", "incorrect username or password");
  user.loginAt = new Date();
  user.loginIp = ip;
  await em.flush();
  return user;
}

/** Issues a fresh `user` session for a user (login, register). */
export function startSession(codec: TokenCodec, user: User, lifetimes: TokenLifetimes): Promise<IssuedTokens> {
  return issueUserTokens(codec, user, lifetimes, { fresh: true });
}

/**
 * Refresh (seed §5.3): a new access and refresh token, `fresh: false`, with the user's current
 * profile and site role. Null for a bad token or a user who is gone or deactivated. Only `user`
 * sessions refresh: a half-registered OAuth session never turns into a user session this way.
 */
export async function refreshSession(
  em: EntityManager,
  codec: TokenCodec,
  claims: RefreshClaims,
  lifetimes: TokenLifetimes,
): Promise<IssuedTokens | null> {
  if (claims.category !== "user") return null;
  const user = await findActiveUser(em, claims.sub);
  if (!user) return null;
  return issueUserTokens(codec, user, lifetimes, { fresh: false, oauthName: claims.oauth_name || undefined });
}

/**
 * `GET /auth/token`: the valid tokens a request holds. A header token is tried both as an access
 * and as a refresh token (Horse's rule); anything invalid becomes an empty string.
 */
export async function heldTokens(
  codec: TokenCodec,
  held: { header?: string; accessCookie?: string; refreshCookie?: string },
): Promise<{ access: { token: string; csrf: string }; refresh: { token: string; csrf: string } }> {
  const accessToken = held.header ?? held.accessCookie ?? "";
  const refreshToken = held.header ?? held.refreshCookie ?? "";
  const [access, refresh] = await Promise.all([
    accessToken ? verifyAccessToken(codec, accessToken) : null,
    refreshToken ? verifyRefreshToken(codec, refreshToken) : null,
  ]);
  return {
    access: access ? { token: accessToken, csrf: access.csrf } : { token: "", csrf: "" },
    refresh: refresh ? { token: refreshToken, csrf: refresh.csrf } : { token: "", csrf: "" },
  };
}
