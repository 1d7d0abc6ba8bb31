import { GitHub } from "arctic";
import { getJson, ProviderError, scopesWith, text } from "./provider";
import type { OAuthProfile, OAuthProvider, ProviderSettings } from "./provider";

const API = "https://api.github.com";
/** How the login page names it. */
const SHOWN = { name: "github", displayName: "GitHub", icon: "https://github.githubassets.com/favicons/favicon.svg" };

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** GitHub's `/user` and `/user/emails` answers → a profile; the e-mail is the primary verified one. */
export function githubProfile(user: Record<string, unknown>, emails: unknown): OAuthProfile {
  const list = Array.isArray(emails) ? (emails as GitHubEmail[]) : [];
  const primary = list.find((e) => e.primary && e.verified);
  if (!primary) throw new ProviderError("the GitHub account has no verified primary e-mail address");
  if (user.id === undefined || !text(user.login)) throw new ProviderError("GitHub did not say who the user is");
  return {
    accountId: text(user.id),
    accountName: text(user.login),
    email: primary.email,
    studentId: "",
    realName: text(user.name),
  };
}

/** GitHub through arctic's client (no PKCE there); scope `user:email` to read the primary address. */
export function githubProvider(settings: ProviderSettings): OAuthProvider {
  const client = new GitHub(settings.clientId, settings.clientSecret, settings.redirectUri);
  return {
    ...SHOWN,
    async authorizationUrl(secrets, scopes) {
      return client.createAuthorizationURL(secrets.state, scopesWith(["user:email"], scopes));
    },
    async profile(code) {
      const tokens = await client.validateAuthorizationCode(code);
      const headers = { authorization: `Bearer ${tokens.accessToken()}`, "user-agent": "joj-backend" };
      const [user, emails] = await Promise.all([
        getJson(`${API}/user`, headers),
        fetch(`${API}/user/emails`, { headers }).then((r) => r.json()),
      ]);
      return githubProfile(user, emails);
    },
  };
}
