import { t } from "elysia";
import { DateTime, Envelope, ListOf, PaginationQuery, Uuid } from "../../http/schemas";
import { MAX_PASSWORD_LENGTH } from "../identity/credentials/passwords";
import { EmailAddress, Username } from "../identity/credentials/name-formats";

/** Horse's `JudgerCreate` (snake_case fields; every one required in practice). */
export const JudgerCreate = t.Object(
  {
    username: Username,
    password: t.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    email: EmailAddress,
  },
  { title: "JudgerCreate" },
);
export type JudgerCreateInput = typeof JudgerCreate.static;

/**
 * Horse's `AuthTokensWithLakefs`. The two storage-credential fields carry this server's judger
 * access key: `Authorization: Basic base64(accessKeyId:secretAccessKey)` authenticates the judger on
 * every endpoint without expiring, unlike the 14-day access token.
 */
export const AuthTokensWithLakefs = t.Object(
  {
    accessToken: t.String(),
    refreshToken: t.String(),
    tokenType: t.String(),
    accessKeyId: t.String({ description: "judger access key id (public part)" }),
    secretAccessKey: t.String({ description: "judger access key secret: shown once, store it like a password" }),
  },
  { title: "AuthTokensWithLakefs" },
);
export const AuthTokensWithLakefsResp = Envelope(AuthTokensWithLakefs, "AuthTokensWithLakefsResp");

export const JudgerDetail = t.Object(
  {
    id: Uuid,
    username: t.String(),
    gravatar: t.String({ default: "" }),
    role: t.String({ default: "user" }),
    isActive: t.Boolean({ default: false }),
    createdAt: DateTime,
    updatedAt: DateTime,
    isAlive: t.Boolean({ description: "seen within JUDGER_ALIVE_SECONDS" }),
    lastSeenAt: t.Nullable(DateTime),
  },
  { title: "JudgerDetail" },
);
export type JudgerDetailView = typeof JudgerDetail.static;
export const JudgerDetailListResp = Envelope(ListOf(JudgerDetail, "JudgerDetailList"), "JudgerDetailListResp");

export const AdminListQuery = t.Object(PaginationQuery);

/** Horse spells the role filter `role` here (and `roles` on `GET /domains`). */
export const AdminUserDomainsQuery = t.Object({
  role: t.Optional(t.Array(t.String())),
  groups: t.Optional(t.Array(t.String())),
  ...PaginationQuery,
});
