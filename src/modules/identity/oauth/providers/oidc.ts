import { CodeChallengeMethod, OAuth2Client } from "arctic";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { getJson, ProviderError, scopesWith, text } from "./provider";
import type { OAuthProfile, OAuthProvider, ProviderSettings } from "./provider";

export interface OidcSettings extends ProviderSettings {
  issuer: string;
  displayName: string;
  icon: string;
  scopes: string[];
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  code_challenge_methods_supported?: string[];
}

/** The id token's and userinfo's claims → a profile (userinfo only adds; `sub` must agree). */
export function oidcProfile(idToken: JWTPayload, userinfo: Record<string, unknown> = {}): OAuthProfile {
  if (userinfo.sub !== undefined && userinfo.sub !== idToken.sub)
    throw new ProviderError("the userinfo answer is about another account");
  const claims = { ...userinfo, ...idToken } as Record<string, unknown>;
  if (!text(claims.sub)) throw new ProviderError("the id token names no subject");
  const email = claims.email_verified === false ? "" : text(claims.email);
  return {
    accountId: text(claims.sub),
    accountName: text(claims.preferred_username) || email.split("@")[0] || text(claims.sub),
    email,
    studentId: text(claims.student_id),
    realName: text(claims.name),
  };
}

/**
 * Any OpenID Connect provider, found through its discovery document (fetched on first use, again
 * after a failure). PKCE (S256) when the provider lists it; the id token's signature (the provider's
 * JWKS), issuer, audience, expiry and nonce are verified before any claim is believed.
 */
export function oidcProvider(settings: OidcSettings): OAuthProvider {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri);
  let discovery: Promise<{ document: Discovery; keys: ReturnType<typeof createRemoteJWKSet> }> | null = null;
  const discover = () => {
    discovery ??= (async () => {
      const document = (await getJson(
        `${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
      )) as unknown as Discovery;
      if (!document.authorization_endpoint || !document.token_endpoint || !document.jwks_uri)
        throw new ProviderError("the discovery document lacks endpoints");
      return { document, keys: createRemoteJWKSet(new URL(document.jwks_uri)) };
    })().catch((error) => {
      discovery = null;
      throw error;
    });
    return discovery;
  };
  const usesPkce = (document: Discovery) => document.code_challenge_methods_supported?.includes("S256") ?? false;
  return {
    name: "oidc",
    displayName: settings.displayName,
    icon: settings.icon,
    async authorizationUrl(secrets, scopes) {
      const { document } = await discover();
      const all = scopesWith(["openid", ...settings.scopes], scopes);
      const url = usesPkce(document)
        ? client.createAuthorizationURLWithPKCE(
            document.authorization_endpoint,
            secrets.state,
            CodeChallengeMethod.S256,
            secrets.verifier,
            all,
          )
        : client.createAuthorizationURL(document.authorization_endpoint, secrets.state, all);
      url.searchParams.set("nonce", secrets.nonce);
      return url;
    },
    async profile(code, secrets) {
      const { document, keys } = await discover();
      const tokens = await client.validateAuthorizationCode(
        document.token_endpoint,
        code,
        usesPkce(document) ? secrets.verifier : null,
      );
      const { payload } = await jwtVerify(tokens.idToken(), keys, {
        issuer: document.issuer,
        audience: settings.clientId,
      });
      if (payload.nonce !== secrets.nonce) throw new ProviderError("the id token's nonce is not this login's");
      const userinfo = document.userinfo_endpoint
        ? await getJson(document.userinfo_endpoint, { authorization: `Bearer ${tokens.accessToken()}` })
        : {};
      return oidcProfile(payload, userinfo);
    },
  };
}
