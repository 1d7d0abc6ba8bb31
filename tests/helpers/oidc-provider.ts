import Provider from "oidc-provider";
import { createServer } from "node:net";

export interface TestAccount {
  sub: string;
  email: string;
  preferred_username: string;
  name: string;
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package: discovery, JWKS-signed id tokens, PKCE,
 * userinfo) on a loopback port. Its login page is replaced by one that signs in `next` at once, or
 * denies when `next` is "deny", so a test can drive the whole browser flow.
 */
export async function startOidcProvider(client: { clientId: string; clientSecret: string; redirectUri: string }) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, TestAccount>();
  const control: { next: TestAccount | "deny" | null } = { next: null };
  const provider = new Provider(issuer, {
    clients: [{ client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [client.redirectUri] }],
    claims: { email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ ...account, email_verified: true }) } : undefined;
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
  });
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith("/interaction/")) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const who = control.next;
    ctx.respond = false;
    if (who === "deny" || who === null) {
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { error: "access_denied", error_description: "the user said no" },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    accounts.set(who.sub, who);
    const grant = new provider.Grant({ accountId: who.sub, clientId: details.params.client_id as string });
    grant.addOIDCScope(String(details.params.scope));
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: who.sub }, consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: false },
    );
  });
  const server = provider.listen(port);
  await new Promise((resolve) => server.once("listening", resolve));
  return { issuer, control, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
