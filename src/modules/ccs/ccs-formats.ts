/** The Contest API's TIME, RELTIME and ID formats (ccs.schemas.ts), and how we write times in them. */

// The spec lets milliseconds be optional but demands one choice for every timestamp; ours always carry them.
// Ranges are tight (minute 59, not 69) so a test catches a hand-made timestamp; years 1000-2999 as the spec's.
export const CCS_TIME =
  String.raw`^[12]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}` +
  String.raw`([+-](0\d|1[0-4])(:[0-5]\d)?|Z)$`;
/** `(-)?(h)*h:mm:ss.uuu`: hours unbounded, without a leading zero beyond the one digit. */
export const CCS_RELTIME = String.raw`^-?([1-9][0-9]*)?[0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}$`;
export const CCS_POS_RELTIME = String.raw`^([1-9][0-9]*)?[0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}$`;
/** At most 36 of [a-zA-Z0-9_.-], not starting with "-" or ".", not ending with "." (no lookahead needed). */
export const CCS_ID = "^[a-zA-Z0-9_]([a-zA-Z0-9_.-]{0,34}[a-zA-Z0-9_-])?$";

/** A TIME as we send it: UTC, `Z`, milliseconds. Throws RangeError for an invalid Date, as toISOString does. */
export function ccsTime(date: Date): string {
  return date.toISOString();
}

/** A RELTIME as we send it, `h:mm:ss.mmm`, from milliseconds (rounded; -0.4 ms is "0:00:00.000", unsigned). */
export function ccsRelTime(ms: number): string {
  // Past 2^53 the arithmetic below is no longer exact, and no contest lasts 285,000 years.
  if (!Number.isFinite(ms) || Math.abs(ms) > Number.MAX_SAFE_INTEGER) throw new RangeError(`no RELTIME: ${ms}`);
  const total = Math.round(Math.abs(ms));
  const sign = ms < 0 && total > 0 ? "-" : "";
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  return `${sign}${hours}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(total % 1000, 3)}`;
}
