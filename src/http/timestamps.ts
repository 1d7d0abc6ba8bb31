import { InputError } from "../core/errors";

/**
 * The one reader of timestamps that clients send: problem-set windows, invitation expiry, a judger's
 * `judgedAt`. ISO 8601 with or without an offset (none means UTC, never the server's zone: JOJ's tiger
 * judger sends Python's naive `datetime.now().isoformat()`), or Unix seconds, or milliseconds above 2e10
 * (what the JOJ front end sends). Dates that do not exist (30 February, hour 25) are refused rather than
 * rolled over, as `Date` would.
 */
export const TIMESTAMP_FORMS =
  "ISO 8601 (2026-11-23T18:42:13.430123, an offset optional: none means UTC), or Unix seconds (milliseconds when " +
  "larger than 2e10)";

const MILLISECOND_THRESHOLD = 2e10;
// Date's own limit: ±100,000,000 days around 1970.
const MAX_MS = 8.64e15;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const UNIX = /^-?\d{1,20}(\.\d{1,9})?$/;

/** The instant a client meant, or null when the value is no timestamp or names a date that does not exist. */
export function parseTimestamp(value: string | number): Date | null {
  if (typeof value === "number") return fromUnix(value);
  const text = value.trim();
  if (UNIX.test(text)) return fromUnix(Number(text));
  const m = ISO.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const offset = offsetMinutes(m[8]);
  if (offset === null) return null;
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offset, second, millis);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The same, or a 422 naming the field (`loc`), for a service reading a request. */
export function readTimestamp(value: string | number, loc: (string | number)[]): Date {
  const date = parseTimestamp(value);
  if (!date) throw new InputError(loc, `not a valid timestamp: expected ${TIMESTAMP_FORMS}`, "value_error.datetime");
  return date;
}

function fromUnix(n: number): Date | null {
  if (!Number.isFinite(n)) return null;
  const ms = Math.abs(n) > MILLISECOND_THRESHOLD ? n : n * 1000;
  return Math.abs(ms) <= MAX_MS ? new Date(Math.round(ms)) : null;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Minutes east of UTC; 0 for no offset or `Z`; null for an offset no zone has (beyond ±14:00). */
function offsetMinutes(text: string | undefined): number | null {
  if (!text || text.toUpperCase() === "Z") return 0;
  const digits = text.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return null;
  return (text[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}
