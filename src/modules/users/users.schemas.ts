import { t } from "elysia";
import { DateTime, Envelope, ListOf, Uuid } from "../../http/schemas";
import { MAX_PASSWORD_LENGTH } from "../identity/credentials/passwords";

/** Horse's user schemas (OpenAPI `UserPreview`, `User`, `UserDetail`, `UserEdit`, `UserResetPassword`). */

export const UserPreview = t.Object(
  { id: Uuid, username: t.String(), gravatar: t.String({ default: "" }) },
  { title: "UserPreview" },
);

const userFields = {
  id: Uuid,
  username: t.String(),
  gravatar: t.String({ default: "" }),
  role: t.String({ default: "user" }),
  isActive: t.Boolean({ default: false }),
};

export const UserSchema = t.Object(userFields, { title: "User" });

export const userDetailFields = {
  ...userFields,
  createdAt: DateTime,
  updatedAt: DateTime,
  // No output format check: a value the input rules let through must never turn a read into a 500.
  email: t.String({ description: "e-mail address" }),
  studentId: t.String({ default: "" }),
  realName: t.String({ default: "" }),
  registerIp: t.String(),
  loginAt: DateTime,
  loginIp: t.String(),
};

export const UserDetail = t.Object(userDetailFields, { title: "UserDetail" });

export const UserEdit = t.Object(
  { gravatar: t.Optional(t.String({ maxLength: 512 })) },
  { title: "UserEdit", description: "Fields the user may change; an absent field is left as it is." },
);

export const UserResetPassword = t.Object(
  {
    currentPassword: t.Optional(t.String({ maxLength: MAX_PASSWORD_LENGTH, default: "" })),
    newPassword: t.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { title: "UserResetPassword" },
);

export const UserPreviewResp = Envelope(UserPreview, "UserPreviewResp");
export const UserDetailResp = Envelope(UserDetail, "UserDetailResp");
export const UserListResp = Envelope(ListOf(UserSchema, "UserList"), "UserListResp");

export type UserDetailView = typeof UserDetail.static;
export type UserView = typeof UserSchema.static;
export type UserPreviewView = typeof UserPreview.static;
export type UserEditInput = typeof UserEdit.static;
export type UserResetPasswordInput = typeof UserResetPassword.static;
