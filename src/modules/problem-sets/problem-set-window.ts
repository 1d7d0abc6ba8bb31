import { InputError } from "../../core/errors";
import { readTimestamp } from "../../http/timestamps";

export type WindowState = "before" | "open" | "late" | "locked";

interface Window {
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

/** Parses the window fields of a request; `null` clears one. The times must come in order. */
export function parseWindow(
  input: { unlockAt?: string | number | null; dueAt?: string | number | null; lockAt?: string | number | null },
  current: Window = {},
): Window {
  const result: Window = { ...current };
  for (const key of ["unlockAt", "dueAt", "lockAt"] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null) result[key] = null;
    else result[key] = readTimestamp(value, ["body", key]);
  }
  const ordered = [result.unlockAt, result.dueAt, result.lockAt].filter((d): d is Date => d instanceof Date);
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i - 1].getTime() > ordered[i].getTime()) {
      throw new InputError(["body"], "the times must come in order: unlockAt ≤ dueAt ≤ lockAt", "value_error.window");
    }
  }
  return result;
}
