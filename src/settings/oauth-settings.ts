import type { EnvReader } from "../core/env-reader";

export interface OAuthClientSettings {
  clientId: string;
  clientSecret: string;
}

export interface OidcClientSettings extends OAuthClientSettings {
  issuer: string;
  displayName: string;
  icon: string;
  scopes: string[];
}

/** The login services this server offers; each is on when its client id and secret are set. */
export interface OAuthSettings {
  github: OAuthClientSettings | null;
  jaccount: OAuthClientSettings | null;
  oidc: OidcClientSettings | null;
}

/**
 * Horse's variables (`OAUTH_GITHUB`, `OAUTH_GITHUB_ID`, `OAUTH_GITHUB_SECRET`, likewise `JACCOUNT`) plus
 * `OAUTH_OIDC_*` for any OpenID Connect provider. `OAUTH_<NAME>=false` turns a configured one off; `true`
 * without its credentials is an error.
 */
export function readOAuthSettings(read: EnvReader, problems: string[]): OAuthSettings {
  const client = (name: string): OAuthClientSettings | null => {
    const clientId = read.optional(`OAUTH_${name}_ID`);
    const clientSecret = read.optional(`OAUTH_${name}_SECRET`);
    const wanted = read.boolean(`OAUTH_${name}`, clientId !== undefined || clientSecret !== undefined);
    if (!wanted) return null;
    if (!clientId || !clientSecret) {
      problems.push(`OAUTH_${name}_ID and OAUTH_${name}_SECRET are both needed to offer ${name.toLowerCase()} login`);
      return null;
    }
    return { clientId, clientSecret };
  };
  const github = client("GITHUB");
  const jaccount = client("JACCOUNT");
  const oidcClient = client("OIDC");
  let oidc: OidcClientSettings | null = null;
  if (oidcClient) {
    const issuer = read.optionalUrl("OAUTH_OIDC_ISSUER", ["https:", "http:"]);
    if (!issuer) problems.push("OAUTH_OIDC_ISSUER is needed for OpenID Connect login (the provider's issuer URL)");
    oidc = {
      ...oidcClient,
      issuer: issuer ?? "",
      displayName: read.string("OAUTH_OIDC_DISPLAY_NAME", "OpenID Connect"),
      icon: read.string("OAUTH_OIDC_ICON", ""),
      scopes: (read.optional("OAUTH_OIDC_SCOPES") ?? "openid email profile").split(/[\s,]+/).filter(Boolean),
    };
  }
  return { github, jaccount, oidc };
}
