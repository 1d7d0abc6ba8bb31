import type { EntityManager } from "@mikro-orm/postgresql";
import { LockMode } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { BizError, InputError } from "../../core/errors";
import { isUuid } from "../../db/addressing";
import { isoTime } from "../../http/schemas";
import { readTimestamp } from "../../http/timestamps";
import type { DomainAccess } from "../identity/access";
import { identityKey } from "../identity/credentials/names";
import { User } from "../users/user.entity";
import { DomainUser } from "../domains/domain-user.entity";
import { audit } from "../audit/audit.service";
import type { AuditFields } from "../audit/audit-fields";
import type { ProblemSet } from "./problem-set.entity";
import { ProblemSetExtension } from "./problem-set-extension.entity";
import { assertInOrder, type OwnDates, windowFor } from "./problem-set-window";
import type { ProblemSetExtensionPutInput, ProblemSetExtensionView } from "./problem-set-extensions.schemas";
import { INSERT_EXTENSION_SQL } from "./problem-sets.sql";

const ownOf = (row: { dueAt?: Date | null; lockAt?: Date | null }): OwnDates => ({
  dueAt: row.dueAt ?? null,
  lockAt: row.lockAt ?? null,
});

/**
 * Every extension of a set, by user id: what the scoreboard and the grade export need to judge each
 * member's rows by that member's own window (windowFor).
 */
export async function extensionsOf(em: EntityManager, set: { id: string }): Promise<Map<string, OwnDates>> {
  const rows = await em.find(ProblemSetExtension, { problemSet: set.id });
  return new Map(rows.map((row) => [row.user.id, ownOf(row)]));
}

/** One user's extensions among some sets, by set id, in one query (a list of sets shown to its caller). */
export async function ownDatesOf(em: EntityManager, userId: string, setIds: string[]): Promise<Map<string, OwnDates>> {
  if (setIds.length === 0) return new Map();
  const rows = await em.find(ProblemSetExtension, { user: userId, problemSet: { $in: setIds } });
  return new Map(rows.map((row) => [row.problemSet.id, ownOf(row)]));
}

/** One user's own dates on a set, or null when they have no extension there. */
export async function ownDates(em: EntityManager, set: { id: string }, userId: string): Promise<OwnDates | null> {
  return (await ownDatesOf(em, userId, [set.id])).get(set.id) ?? null;
}

export function listExtensions(em: EntityManager, set: ProblemSet): Promise<ProblemSetExtension[]> {
  return em.find(
    ProblemSetExtension,
    { problemSet: set.id },
    { populate: ["user"], orderBy: { user: { usernameLower: "asc" }, id: "asc" } },
  );
}

/** A user by id or, failing that, by username (a username may look like an id); unknown: UserNotFoundError. */
async function findUser(em: EntityManager, ref: string): Promise<User> {
  const byId = isUuid(ref) ? await em.findOne(User, { id: ref.toLowerCase() }) : null;
  const user = byId ?? (await em.findOne(User, { usernameLower: identityKey(ref.trim()) }));
  if (!user) throw new BizError("UserNotFoundError", "user not found");
  return user;
}

/** Extensions are for the domain's members only; anyone else is DomainUserNotFoundError, as on the members routes. */
async function findMember(em: EntityManager, access: DomainAccess, ref: string): Promise<User> {
  const user = await findUser(em, ref);
  if (!(await em.count(DomainUser, { domain: access.domainId, user: user.id })))
    throw new BizError("DomainUserNotFoundError", "the user is not a member of this domain");
  return user;
}

/** The request's own dates, checked against the set's window as the student would have it. */
function readOwnDates(set: ProblemSet, input: ProblemSetExtensionPutInput): OwnDates {
  const read = (key: "dueAt" | "lockAt") => {
    const value = input[key];
    return value === undefined || value === null ? null : readTimestamp(value, ["body", key]);
  };
  const own = { dueAt: read("dueAt"), lockAt: read("lockAt") };
  if (!own.dueAt && !own.lockAt) {
    const message = "give dueAt or lockAt: an extension with neither would change nothing (DELETE removes one)";
    throw new InputError(["body"], message, "value_error.extension");
  }
  const given = (["dueAt", "lockAt"] as const).filter((key) => own[key] !== null);
  assertInOrder(windowFor(set, own), given);
  return own;
}

// The log names whose extension an event is about even when only the times changed (audit `about`).
const ABOUT = ["userId", "username"];
const snapshot = (user: User, own: OwnDates | null): AuditFields | null =>
  own && { userId: user.id, username: user.username, dueAt: own.dueAt, lockAt: own.lockAt };

/**
 * The (set, user) row, locked: made by INSERT_EXTENSION_SQL, or the one already there. A concurrent
 * DELETE may remove that one between the insert that met it and the lock; the insert is then tried again.
 */
async function insertOrLock(tx: EntityManager, setId: string, userId: string, own: OwnDates, grantedById: string) {
  const values = [randomUUID(), setId, userId, own.dueAt, own.lockAt, grantedById];
  for (let attempt = 0; ; attempt++) {
    const created = (await tx.execute<{ id: string }[]>(INSERT_EXTENSION_SQL, values)).length > 0;
    const where = { problemSet: setId, user: userId };
    const found = await tx.findOne(ProblemSetExtension, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (found) return { found, created };
    if (attempt > 0) throw new Error("problem set extension: neither inserted nor found");
  }
}

/**
 * Grants or replaces a member's extension, with its event, in one transaction. Race-safe: the insert
 * either makes the row or, through the unique (set, user), waits for whoever did and does nothing; the
 * row is then read under a lock, so the event's `before` is the row this change replaced.
 */
export async function putExtension(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  userRef: string,
  input: ProblemSetExtensionPutInput,
): Promise<ProblemSetExtensionView> {
  const user = await findMember(em, access, userRef);
  const own = readOwnDates(set, input);
  const row = await em.transactional(async (tx) => {
    const { found, created } = await insertOrLock(tx, set.id, user.id, own, access.userId);
    const before = created ? null : snapshot(user, ownOf(found));
    found.dueAt = own.dueAt;
    found.lockAt = own.lockAt;
    found.grantedBy = tx.getReference(User, access.userId);
    audit(tx, access, {
      action: "problem_set.extension_grant",
      target: { type: "problem_set", id: set.id },
      domainId: access.domainId,
      before,
      after: snapshot(user, own),
      about: ABOUT,
    });
    await tx.flush();
    return found;
  });
  return toExtensionView(row, user.username);
}

/**
 * Removes a user's extension, with its event. A former member's extension can still be removed (it
 * outlives their membership), so only the user must exist; having none is IntegrityError, as removing a
 * problem a set does not hold is.
 */
export async function revokeExtension(
  em: EntityManager,
  access: DomainAccess,
  set: ProblemSet,
  userRef: string,
): Promise<void> {
  const user = await findUser(em, userRef);
  await em.transactional(async (tx) => {
    const found = await tx.findOne(
      ProblemSetExtension,
      { problemSet: set.id, user: user.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!found) throw new BizError("IntegrityError", "the user has no extension on this problem set");
    audit(tx, access, {
      action: "problem_set.extension_revoke",
      target: { type: "problem_set", id: set.id },
      domainId: access.domainId,
      before: snapshot(user, ownOf(found)),
      about: ABOUT,
    });
    await tx.nativeDelete(ProblemSetExtension, { id: found.id });
  });
}

/** An extension as the API shows it; `username` is the user's (populated, or known to the caller). */
export function toExtensionView(row: ProblemSetExtension, username = row.user.username): ProblemSetExtensionView {
  return {
    userId: row.user.id,
    username,
    dueAt: isoTime(row.dueAt ?? null),
    lockAt: isoTime(row.lockAt ?? null),
    grantedById: row.grantedBy?.id ?? null,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}
