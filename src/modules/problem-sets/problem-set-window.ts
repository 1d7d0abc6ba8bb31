import { InputError } from "../../core/errors";
import { readTimestamp } from "../../http/timestamps";

export type WindowState = "before" | "open" | "late" | "locked";

export interface Window {
  unlockAt?: Date | null;
  dueAt?: Date | null;
  lockAt?: Date | null;
}

/**
 * Where a problem set stands at an instant (all times are instants, compared in UTC):
 * before `unlockAt` its problems are closed; from `dueAt` submissions are late; from `lockAt` none.
 */
export function windowState(set: Window, now: Date = new Date()): WindowState {
  const at = now.getTime();
  if (set.unlockAt && at < set.unlockAt.getTime()) return "before";
  if (set.lockAt && at >= set.lockAt.getTime()) return "locked";
  if (set.dueAt && at >= set.dueAt.getTime()) return "late";
  return "open";
}

export type WindowField = keyof Window;
const FIELDS: readonly WindowField[] = ["unlockAt", "dueAt", "lockAt"];

/** Parses the window fields of a request; `null` clears one. The times must come in order. */
export function parseWindow(
  input: { unlockAt?: string | number | null; dueAt?: string | number | null; lockAt?: string | number | null },
  current: Window = {},
): Window {
  const result: Window = { ...current };
  for (const key of FIELDS) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null) result[key] = null;
    else result[key] = readTimestamp(value, ["body", key]);
  }
  const given = FIELDS.filter((key) => input[key] !== undefined);
  assertInOrder(result, given);
  return result;
}

/**
 * unlockAt ≤ dueAt ≤ lockAt among the times a window has, or a 422 located at a field the request gave
 * (`given`): of a pair out of order, the later one if given, else the earlier, so the caller is pointed
 * at what they can change (an extension's own dueAt or lockAt, never the set's unlockAt).
 */
export function assertInOrder(window: Window, given: readonly WindowField[] = FIELDS): void {
  const present = FIELDS.filter((key) => window[key] instanceof Date);
  for (let i = 1; i < present.length; i++) {
    const [earlier, later] = [present[i - 1], present[i]];
    if ((window[earlier] as Date).getTime() <= (window[later] as Date).getTime()) continue;
    const field = given.includes(later) ? later : earlier;
    throw new InputError(
      ["body", field],
      `the times must come in order: unlockAt ≤ dueAt ≤ lockAt (${earlier} is after ${later})`,
      "value_error.window",
    );
  }
}

/** A student's own due and lock times (problem-set-extension.entity.ts); null keeps the set's. */
export interface OwnDates {
  dueAt: Date | null;
  lockAt: Date | null;
}

/** The window a user has: the set's, with their extension's due and lock times where they have one. */
export function windowFor<W extends Window>(set: W, own: OwnDates | null | undefined): Window {
  if (!own) return { unlockAt: set.unlockAt ?? null, dueAt: set.dueAt ?? null, lockAt: set.lockAt ?? null };
  return {
    unlockAt: set.unlockAt ?? null,
    dueAt: own.dueAt ?? set.dueAt ?? null,
    lockAt: own.lockAt ?? set.lockAt ?? null,
  };
}
