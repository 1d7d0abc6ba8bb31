import type { EntityManager } from "@mikro-orm/postgresql";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { generateCodeVerifier, generateState } from "arctic";
import { randomUUID, timingSafeEqual } from "node:crypto";
import type Redis from "ioredis";
import { BizError } from "../../../core/errors";
import { identityKey, isUsername, USERNAME_RULE } from "../credentials/names";
import type { Logger } from "../../../core/logger";
import {
  issueProviderToken,
  issueUserTokens,
  type AccessClaims,
  type IssuedTokens,
  type TokenCodec,
  type TokenLifetimes,
} from "../credentials/tokens";
import { createFirstOrUser } from "../sessions/auth.service";
import type { UserCreateInput } from "../sessions/auth.schemas";
import { User } from "../../users/user.entity";
import { OAuthAccount } from "./oauth-account.entity";
import type { LoginSecrets, OAuthProfile, OAuthProvider } from "./providers/provider";

/** The cookie binding a login to the browser that started it (state, PKCE verifier, nonce, where to go). */
export const STATE_COOKIE = "oauth2_state";
export const STATE_SECONDS = 600;

/** How the login ends, chosen at the authorize step (Horse kept these in its state JWT). */
export interface LoginIntent {
  cookie: boolean;
  responseType: "json" | "redirect";
  redirectUrl: string;
}

export interface PendingLogin {
  provider: string;
  jti: string;
  secrets: LoginSecrets;
  intent: LoginIntent;
}

/** Starts a login: the provider's URL and the signed, short-lived state cookie value. */
export async function beginLogin(
  codec: TokenCodec,
  provider: OAuthProvider,
  intent: LoginIntent,
  scopes: string[],
): Promise<{ url: string; stateToken: string }> {
  const secrets: LoginSecrets = { state: generateState(), verifier: generateCodeVerifier(), nonce: generateState() };
  const url = await provider.authorizationUrl(secrets, scopes);
  const now = Math.floor(Date.now() / 1000);
  const stateToken = await codec.sign({
    type: "oauth_state",
    sub: provider.name,
    jti: randomUUID(),
    iat: now,
    exp: now + STATE_SECONDS,
    ...secrets,
    ...intent,
  });
  return { url: url.toString(), stateToken };
}

/** The pending login the browser's state cookie holds for this provider, or null (none, forged, expired). */
export async function readPendingLogin(
  codec: TokenCodec,
  token: string | undefined,
  providerName: string,
): Promise<PendingLogin | null> {
  const claims = token ? await codec.verify(token) : null;
  if (claims?.type !== "oauth_state" || claims.sub !== providerName) return null;
  const { jti, state, verifier, nonce, cookie, responseType, redirectUrl } = claims as Record<string, unknown>;
  if (typeof jti !== "string" || typeof state !== "string" || typeof verifier !== "string" || typeof nonce !== "string")
    return null;
  if ((responseType !== "json" && responseType !== "redirect") || typeof redirectUrl !== "string") return null;
  return {
    provider: providerName,
    jti,
    secrets: { state, verifier, nonce },
    intent: { cookie: cookie !== false, responseType, redirectUrl },
  };
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export interface CallbackDeps {
  em: EntityManager;
  redis: Redis;
  codec: TokenCodec;
  lifetimes: TokenLifetimes;
  logger: Logger;
}

/**
 * The provider's callback (seed §5.2): a linked user gets a `user` session; an unlinked account an
 * `oauth` token carrying the provider's profile; any failure a token of empty category (the front end
 * shows the error). The pending login is used once: a replayed callback fails.
 */
export async function finishLogin(
  deps: CallbackDeps,
  provider: OAuthProvider,
  pending: PendingLogin,
  query: { code?: string; state?: string; error?: string },
  ip: string,
): Promise<IssuedTokens> {
  const failed = (reason: string) => {
    deps.logger.warn("oauth login failed", { provider: provider.name, reason });
    return issueProviderToken(deps.codec, provider.name, null);
  };
  // A pending login answers one callback, whatever its outcome: a forged attempt burns it too.
  const fresh = await deps.redis.set(`oauth2:used:${pending.jti}`, "1", "EX", STATE_SECONDS, "NX").catch(() => null);
  if (fresh !== "OK") return failed("this login was already used (a replayed callback), or Redis is unreachable");
  if (query.error) return failed(`the provider answered ${query.error}`);
  if (!query.state || !sameText(query.state, pending.secrets.state))
    return failed("the state does not match this browser's login");
  if (!query.code) return failed("no authorization code");
  let profile: OAuthProfile;
  try {
    profile = await provider.profile(query.code, pending.secrets);
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  const account = await deps.em.findOne(
    OAuthAccount,
    { oauthName: provider.name, accountId: profile.accountId },
    { populate: ["user"] },
  );
  if (!account) return issueProviderToken(deps.codec, provider.name, profile);
  const user = account.user as unknown as User;
  if (!user.isActive) return failed("the linked user is deactivated");
  account.accountName = profile.accountName;
  account.accountEmail = profile.email;
  user.loginAt = new Date();
  user.loginIp = ip;
  await deps.em.flush();
  return issueUserTokens(deps.codec, user, deps.lifetimes, { fresh: true, oauthName: provider.name });
}

const refused = (message: string) => new BizError("UserRegisterError", message);

/**
 * Registration by OAuth (seed §5.4): the caller's `oauth` token must name the same service and
 * account; username and e-mail default to the provider's; the password is optional. The user and
 * the link are made together, so an account is never half-registered.
 */
export async function registerWithOAuth(
  em: EntityManager,
  claims: AccessClaims | null,
  input: UserCreateInput,
  ip: string,
): Promise<User> {
  if (claims?.category !== "oauth")
    throw refused("log in with the OAuth service first: registration by OAuth needs its oauth token");
  if (input.oauth_name !== claims.oauth_name || input.oauth_account_id !== claims.sub)
    throw refused("oauth account not matched: oauth_name and oauth_account_id must be those of your oauth token");
  const username = input.username || claims.username;
  const email = input.email || claims.email;
  if (!username) throw refused("username not provided");
  if (!email) throw refused("email not provided (the OAuth service gave none)");
  if (!input.username && !isUsername(username))
    throw refused(`the ${claims.oauth_name} username cannot be used here (${USERNAME_RULE}): choose a username`);
  try {
    return await em.transactional(async (tx) => {
      if (await tx.count(OAuthAccount, { oauthName: claims.oauth_name, accountId: claims.sub }))
        throw refused(`this ${claims.oauth_name} account is already registered: log in with it`);
      if (await tx.count(User, { emailLower: identityKey(email) })) {
        throw refused(
          "email is already registered: log in to that account instead (linking an OAuth account to an existing " +
            "user is not implemented)",
        );
      }
      const user = await createFirstOrUser(tx, { username, email, password: input.password ?? "", ip });
      tx.create(OAuthAccount, {
        oauthName: claims.oauth_name,
        accountId: claims.sub,
        accountName: claims.username,
        accountEmail: claims.email,
        user,
      });
      await tx.flush();
      return user;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw refused(`this ${claims.oauth_name} account was registered at the same moment: log in with it`);
    throw error;
  }
}
