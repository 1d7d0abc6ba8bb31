import { t } from "elysia";
import { Envelope, ListOf } from "../../../http/schemas";
import { AuthQuery } from "../sessions/auth.schemas";

export const OAuth2ClientSchema = t.Object(
  { oauthName: t.String(), displayName: t.String(), icon: t.String() },
  { title: "OAuth2Client" },
);
export const OAuth2ClientListResp = Envelope(ListOf(OAuth2ClientSchema, "OAuth2ClientList"), "OAuth2ClientListResp");
export const RedirectResp = Envelope(t.Object({ redirectUrl: t.String() }, { title: "Redirect" }), "RedirectResp");

export const ProviderParams = t.Object({ oauth2: t.String({ description: "OAuth client name", maxLength: 32 }) });

const Scopes = t.Optional(
  t.Union([t.Array(t.String({ maxLength: 128 }), { maxItems: 20 }), t.String({ maxLength: 128 })]),
);
export const AuthorizeQuery = t.Composite([AuthQuery, t.Object({ scopes: Scopes })]);

export const CallbackQuery = t.Object({
  code: t.Optional(t.String({ maxLength: 4096 })),
  state: t.Optional(t.String({ maxLength: 512 })),
  error: t.Optional(t.String({ maxLength: 512 })),
  error_description: t.Optional(t.String({ maxLength: 2048 })),
  iss: t.Optional(t.String({ maxLength: 2048 })),
});
