import { OAuth2Client } from "arctic";
import { getJson, ProviderError, scopesWith, text } from "./provider";
import type { OAuthProfile, OAuthProvider, ProviderSettings } from "./provider";

// SJTU's endpoints (horse-api.md §2.5).
const AUTHORIZE = "https://jaccount.sjtu.edu.cn/oauth2/authorize";
const TOKEN = "https://jaccount.sjtu.edu.cn/oauth2/token";
const PROFILE = "https://api.sjtu.edu.cn/v1/me/profile";
/** How the login page names it. */
const SHOWN = { name: "jaccount", displayName: "JAccount", icon: "https://vi.sjtu.edu.cn/img/base/Logo.png" };

/** jAccount's profile answer → a profile: the first entity; the e-mail is `<account>@sjtu.edu.cn`. */
export function jaccountProfile(answer: Record<string, unknown>): OAuthProfile {
  const entity = (Array.isArray(answer.entities) ? answer.entities[0] : undefined) as
    | Record<string, unknown>
    | undefined;
  if (!entity || !text(entity.id) || !text(entity.account))
    throw new ProviderError("jAccount did not say who the user is");
  return {
    accountId: text(entity.id),
    accountName: text(entity.account),
    email: `${text(entity.account)}@sjtu.edu.cn`,
    studentId: text(entity.code),
    realName: text(entity.name),
  };
}

/** jAccount through arctic's generic OAuth2 client, scope `basic`. */
export function jaccountProvider(settings: ProviderSettings): OAuthProvider {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri);
  return {
    ...SHOWN,
    async authorizationUrl(secrets, scopes) {
      return client.createAuthorizationURL(AUTHORIZE, secrets.state, scopesWith(["basic"], scopes));
    },
    async profile(code) {
      const tokens = await client.validateAuthorizationCode(TOKEN, code, null);
      return jaccountProfile(await getJson(`${PROFILE}?access_token=${encodeURIComponent(tokens.accessToken())}`));
    },
  };
}
