import type { Config } from "../../../../settings/config";
import { githubProvider } from "./github";
import { jaccountProvider } from "./jaccount";
import { oidcProvider } from "./oidc";
import type { OAuthProvider } from "./provider";

/** The callback this server registers with a provider: from PUBLIC_URL, never from request headers. */
export const callbackUrl = (config: Config, name: string) => `${config.publicUrl}/api/v1/auth/oauth2/${name}/callback`;

/** The enabled providers, in the order the login page lists them. */
export function enabledProviders(config: Config): Map<string, OAuthProvider> {
  const { github, jaccount, oidc } = config.oauth;
  const providers: OAuthProvider[] = [];
  if (jaccount) providers.push(jaccountProvider({ ...jaccount, redirectUri: callbackUrl(config, "jaccount") }));
  if (github) providers.push(githubProvider({ ...github, redirectUri: callbackUrl(config, "github") }));
  if (oidc) providers.push(oidcProvider({ ...oidc, redirectUri: callbackUrl(config, "oidc") }));
  return new Map(providers.map((p) => [p.name, p]));
}
