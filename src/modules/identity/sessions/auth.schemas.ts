import { t } from "elysia";
import { Envelope, QueryBoolean, OutInt } from "../../../http/schemas";
import { EmailAddress, LoginName, Username } from "../credentials/name-formats";
import { MAX_PASSWORD_LENGTH } from "../credentials/passwords";

/** Query parameters of every `/auth` endpoint (seed §5.1). */
export const AuthQuery = t.Object({
  cookie: QueryBoolean(true),
  responseType: t.Union([t.Literal("redirect"), t.Literal("json")], { description: "`redirect` (302) or `json`" }),
  redirectUrl: t.Optional(t.String({ maxLength: 2048, description: "same-origin or ALLOWED_REDIRECT_ORIGINS only" })),
});
export type AuthQueryInput = typeof AuthQuery.static;

/** Seed §2.2 `UserCreate`: snake_case like Horse's (camelCase is accepted too). */
export const UserCreate = t.Object(
  {
    username: t.Optional(Username),
    email: t.Optional(EmailAddress),
    password: t.Optional(t.String({ maxLength: MAX_PASSWORD_LENGTH })),
    oauth_name: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
    oauth_account_id: t.Optional(t.Nullable(t.String({ maxLength: 255 }))),
  },
  { title: "UserCreate" },
);
export type UserCreateInput = typeof UserCreate.static;

/** Horse's `OAuth2PasswordRequestForm`; only username and password matter. */
export const LoginForm = t.Object(
  {
    username: LoginName,
    password: t.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    grantType: t.Optional(t.String()),
    scope: t.Optional(t.String({ default: "" })),
    clientId: t.Optional(t.String()),
    clientSecret: t.Optional(t.String()),
  },
  { title: "OAuth2PasswordRequestForm" },
);

export const AuthTokens = t.Object(
  { accessToken: t.String(), refreshToken: t.String(), tokenType: t.String() },
  { title: "AuthTokens" },
);
export const AuthTokensResp = Envelope(AuthTokens, "AuthTokensResp");

/** The decoded access token: seed §2.1 claims, with Horse's camelCase names alongside. */
export const JWTAccessToken = t.Object(
  {
    sub: t.String(),
    iat: OutInt(),
    nbf: OutInt(),
    jti: t.String(),
    exp: OutInt(),
    type: t.String(),
    fresh: t.Boolean({ default: false }),
    csrf: t.Optional(t.String()),
    category: t.Union([t.Literal("user"), t.Literal("oauth"), t.Literal("")], {
      description: "empty: the OAuth login failed",
    }),
    username: t.String(),
    email: t.Optional(t.String()),
    student_id: t.Optional(t.String()),
    real_name: t.Optional(t.String()),
    gravatar: t.String({ default: "" }),
    role: t.Nullable(t.String()),
    isActive: t.Boolean(),
    oauth_name: t.Optional(t.String()),
    oauthName: t.Optional(t.String()),
  },
  { title: "JWTAccessToken" },
);
export const JWTAccessTokenResp = Envelope(JWTAccessToken, "JWTAccessTokenResp");
