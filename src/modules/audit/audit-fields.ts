import { createHash } from "node:crypto";
import { DOMAIN_PERMISSION_DEFAULTS, DOMAIN_SCOPES, type DomainPermissionSet } from "../identity/permissions";

/** Every action the audit log records: `<what it acts on>.<what was done>`. */
export const AUDIT_ACTIONS = [
  "domain.update",
  "domain.transfer",
  "domain.delete",
  "domain_role.create",
  "domain_role.update",
  "domain_role.delete",
  "domain_user.add",
  "domain_user.update",
  "domain_user.remove",
  "domain_invitation.create",
  "domain_invitation.update",
  "domain_invitation.delete",
  "problem.create",
  "problem.update",
  "problem.delete",
  "problem.clone",
  "problem.rejudge",
  "problem_config.upload_archive",
  "problem_config.update_json",
  "problem_set.create",
  "problem_set.update",
  "problem_set.delete",
  "problem_set.add_problem",
  "problem_set.move_problem",
  "problem_set.remove_problem",
  "problem_set.extension_grant",
  "problem_set.extension_revoke",
  "problem_set.unfreeze",
  "problem_set.finalize",
  "problem_set.unfinalize",
  "problem_set.clarification_answer",
  "problem_set.clarification_announce",
  "record.rejudge",
  "judger.create",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditTargetType =
  | "domain"
  | "domain_role"
  | "user"
  | "domain_invitation"
  | "problem"
  | "problem_config"
  | "problem_set"
  | "record";

/** A field's value as the log keeps it: JSON (a Date becomes its ISO text). */
export type AuditFields = Record<string, unknown>;
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

/**
 * A problem set's fields, as its create, update and delete events snapshot them (problem-sets.service.ts):
 * here, where what the log may hold is decided, since every one of them is recorded.
 */
export const PROBLEM_SET_FIELDS = [
  "url",
  "title",
  "content",
  "hidden",
  "scoreboardHidden",
  "scoreboardRule",
  "penaltyMinutes",
  "penaltyVerdicts",
  "freezeAt",
  "unfrozenAt",
  "finalizedAt",
  "latePenalty",
  "runsAllowed",
  "gradeStages",
  "unlockAt",
  "dueAt",
  "lockAt",
] as const;

/**
 * The fields whose values the log may hold. Anything else is written as REDACTED, so a field added to
 * a service's snapshot later cannot leak its value before someone decides it is safe to keep.
 */
const RECORDED = new Set([
  "url",
  "name",
  "title",
  "content",
  "hidden",
  "gravatar",
  "bulletin",
  "group",
  "ownerId",
  "role",
  "username",
  "email",
  "expireAt",
  ...PROBLEM_SET_FIELDS,
  "problems",
  "version",
  "commitId",
  "languages",
  "sourceProblemId",
  "sourceDomainId",
  "state",
  "score",
  "configId",
  "problemSetId",
  "userId",
  "states",
  "language",
  "config",
  // What a rejudge that un-finalized a set judged again: a record's or a problem's id (problem_set.unfinalize).
  "rejudged",
  // A clarification's answer or announcement: which message, about which problem, to whom; never its text
  // (a private answer may repeat a student's question; the message is kept in its own table).
  "clarificationId",
  "replyToId",
  "problemId",
  "public",
  // A role's permission flags, one field each (`problem.edit`), so an edit shows only the flags it flipped.
  ...DOMAIN_SCOPES.flatMap((scope) => Object.keys(DOMAIN_PERMISSION_DEFAULTS[scope]).map((flag) => `${scope}.${flag}`)),
]);

/**
 * Secrets, wherever they appear (a nested object's keys too): an invitation's code (it is the only
 * proof needed to join), passwords and their hashes, access-key secrets, tokens. The log says that
 * such a field changed, never its value.
 */
const SECRET = new RegExp(
  `^(${[
    "code",
    "password",
    "hashedPassword",
    "passwordHash",
    "secret",
    "secretDigest",
    "secretAccessKey",
    "accessToken",
    "refreshToken",
    "token",
  ].join("|")})$`,
  "i",
);

export const REDACTED = "[redacted]";

/** Texts longer than this (statements, bulletins) are kept as their length and digest. */
const LONG_TEXT = 8192;

/** A value as JSON the log may hold: dates as the API writes them, secrets inside redacted, long texts summarised. */
function scrub(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "string" && value.length > LONG_TEXT) {
    return { length: value.length, sha256: createHash("sha256").update(value).digest("hex") };
  }
  if (Array.isArray(value)) return value.map(scrub);
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET.test(key) ? REDACTED : scrub(inner)]),
    );
  }
  return value;
}

/** A field's value as the log keeps it: the value itself if recordable, else only whether there was one. */
function kept(field: string, value: unknown): unknown {
  if (RECORDED.has(field) && !SECRET.test(field)) return scrub(value);
  return value === undefined || value === null ? null : REDACTED;
}

/**
 * The changed fields only, `{field: {before, after}}`, from two snapshots (null: the target did not
 * exist before, or no longer does). Unchanged fields are left out, except those in `about` (first): they
 * say what part of the target an event is about (whose extension of a set), which an event that drops
 * them would no longer tell. Secret and unknown fields show that they changed (REDACTED, or null where
 * there was no value), never their values. This is the one place values reach the log.
 */
export function diffFields(
  before: AuditFields | null,
  after: AuditFields | null,
  about: readonly string[] = [],
): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of new Set([...about, ...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    // Compared as given (a Date as its JSON), so a change inside a redacted value still counts.
    const same = JSON.stringify(before?.[field] ?? null) === JSON.stringify(after?.[field] ?? null);
    if (same && !about.includes(field)) continue;
    changes[field] = { before: kept(field, before?.[field]), after: kept(field, after?.[field]) };
  }
  return changes;
}

/** Picks fields of an entity for a snapshot (`pick(set, ["title", "dueAt"])`). */
export function pick<T extends object, K extends keyof T & string>(source: T, fields: readonly K[]): AuditFields {
  return Object.fromEntries(fields.map((field) => [field, source[field]]));
}

/** A permission set as one field per flag (`problemSet.edit: true`). */
export function permissionFields(set: DomainPermissionSet): AuditFields {
  return Object.fromEntries(
    DOMAIN_SCOPES.flatMap((scope) =>
      Object.entries(set[scope]).map(([flag, granted]) => [`${scope}.${flag}`, granted]),
    ),
  );
}
