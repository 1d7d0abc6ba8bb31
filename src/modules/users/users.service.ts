import { readRow } from "../../db/statements";
import { ACTIVE_USER_SQL } from "./users.sql";
import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { hashPassword, verifyPassword } from "../identity/credentials/passwords";
import { findPage, type ListPage, type ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import { User } from "./user.entity";
import type { UserDetailView, UserEditInput, UserPreviewView, UserResetPasswordInput, UserView } from "./users.schemas";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user behind a session, if it still exists and is active. */
export async function findActiveUser(em: EntityManager, id: string): Promise<User | null> {
  const found = await findActiveUserRow(em, id);
  return found ? em.map(User, found) : null;
}

/** The row of the user behind a session (column names), if it still exists and is active. */
export async function findActiveUserRow(em: EntityManager, id: string): Promise<UserRow | null> {
  if (!UUID.test(id)) return null;
  // A prepared statement: every authenticated request runs it (see db/statements.ts).
  return readRow<UserRow>(em, ACTIVE_USER_SQL, [id.toLowerCase()]);
}

/** What a user's pages show: the entity has it, and so has userProfileOf(row) without mapping one. */
export type UserProfile = Pick<
  User,
  | "id"
  | "username"
  | "gravatar"
  | "role"
  | "isActive"
  | "createdAt"
  | "updatedAt"
  | "email"
  | "studentId"
  | "realName"
  | "registerIp"
  | "loginAt"
  | "loginIp"
>;

/** A `users` row, as Bun.sql reads it (Dates) or as `to_json(u)` writes it (ISO text). */
export type UserRow = Record<string, unknown> & { id: string };

/**
 * The profile straight from the row: every authenticated request reads its caller, and mapping the row
 * into an entity (identity map, hydration, snapshot) was about a third of `/users/me`'s CPU.
 * tests/unit/user-profile.test.ts holds it equal to the entity's.
 */
export function userProfileOf(row: UserRow): UserProfile {
  const time = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));
  return {
    id: row.id,
    username: row.username as string,
    gravatar: row.gravatar as string,
    role: row.role as User["role"],
    isActive: row.is_active as boolean,
    createdAt: time(row.created_at),
    updatedAt: time(row.updated_at),
    email: row.email as string,
    studentId: row.student_id as string,
    realName: row.real_name as string,
    registerIp: row.register_ip as string,
    loginAt: time(row.login_at),
    loginIp: row.login_ip as string,
  };
}

/** `me` (the caller) or a UUID; an unknown id is `UserNotFoundError`. */
export async function getUser(em: EntityManager, actor: User, uid: string): Promise<User> {
  if (uid === "me") return actor;
  const user = UUID.test(uid) ? await em.findOne(User, { id: uid.toLowerCase() }) : null;
  if (!user) throw new BizError("UserNotFoundError", "user not found");
  return user;
}

/** A user named in a request body (`me` or a UUID); anything else is `UserNotFoundError`. */
export async function resolveUserRef(em: EntityManager, actor: User, ref: string): Promise<User> {
  return getUser(em, actor, ref.trim());
}

export async function updateCurrentUser(em: EntityManager, actor: User, input: UserEditInput): Promise<User> {
  if (input.gravatar !== undefined) actor.gravatar = input.gravatar;
  await em.flush();
  return actor;
}

/** A user who has a password must prove it; an OAuth-only user (no password yet) sets a first one. */
export async function changePassword(em: EntityManager, actor: User, input: UserResetPasswordInput): Promise<User> {
  if (actor.hashedPassword !== "" && !(await verifyPassword(input.currentPassword ?? "", actor.hashedPassword))) {
    throw new BizError("UsernamePasswordError", "incorrect password");
  }
  actor.hashedPassword = await hashPassword(input.newPassword);
  await em.flush();
  return actor;
}

export function listUsers(
  em: EntityManager,
  query: ListQuery,
  where: { role?: User["role"] } = {},
): Promise<ListPage<User>> {
  return findPage(em, User, where, query);
}

export function toUserPreview(user: UserProfile): UserPreviewView {
  return { id: user.id, username: user.username, gravatar: user.gravatar };
}

export function toUserView(user: UserProfile): UserView {
  return { ...toUserPreview(user), role: user.role, isActive: user.isActive };
}

export function toUserDetail(user: UserProfile): UserDetailView {
  return {
    ...toUserView(user),
    createdAt: isoTime(user.createdAt),
    updatedAt: isoTime(user.updatedAt),
    email: user.email,
    studentId: user.studentId,
    realName: user.realName,
    registerIp: user.registerIp,
    loginAt: isoTime(user.loginAt),
    loginIp: user.loginIp,
  };
}
