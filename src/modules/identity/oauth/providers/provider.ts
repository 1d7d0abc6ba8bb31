/** What a provider tells us about an account; prefills the register form (seed §5.2). */
export interface OAuthProfile {
  accountId: string;
  accountName: string;
  email: string;
  studentId: string;
  realName: string;
}

/** The per-login secrets the authorize step makes and the callback must present again. */
export interface LoginSecrets {
  state: string;
  /** PKCE code verifier; ignored by providers without PKCE. */
  verifier: string;
  /** OpenID Connect nonce; ignored by plain OAuth2 providers. */
  nonce: string;
}

/**
 * One login service. Adding one is a file exporting a factory of this: where to send the browser,
 * and how to turn the callback's code into a profile.
 */
export interface OAuthProvider {
  readonly name: string;
  readonly displayName: string;
  readonly icon: string;
  authorizationUrl(secrets: LoginSecrets, scopes: string[]): Promise<URL>;
  profile(code: string, secrets: LoginSecrets): Promise<OAuthProfile>;
}

/** The scopes a login asks for: the provider's own first, then the operator's, each once. */
export const scopesWith = (required: readonly string[], asked: readonly string[]) => [
  ...new Set([...required, ...asked]),
];

export interface ProviderSettings {
  clientId: string;
  clientSecret: string;
  /** This server's callback for the provider, built from PUBLIC_URL (registered with the provider). */
  redirectUri: string;
}

/** A provider answered something we cannot use: the login fails with this message (never a 500). */
export class ProviderError extends Error {
  override name = "ProviderError";
}

/** GETs a provider's JSON API, refusing anything but a 2xx JSON object. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    headers: { accept: "application/json", ...headers },
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.json().catch(() => null);
  if (!response.ok || !body || typeof body !== "object")
    throw new ProviderError(`${new URL(url).host} answered HTTP ${response.status}`);
  return body as Record<string, unknown>;
}

export const text = (value: unknown) =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
