/** What a report may carry of a program's (or compiler's) output. */
export const REPORT_OUTPUT_CHARS = 64 * 1024;

/**
 * Output as safe text: invalid UTF-8 becomes U+FFFD, control characters other than newline and tab
 * (terminal escapes, NULs) are shown as `\xNN`, and anything past `max` characters is cut with a note.
 */
export function escapeOutput(bytes: Uint8Array, max = REPORT_OUTPUT_CHARS, truncated = false): string {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, max * 4));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  let escaped = text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  if (escaped.length > max || truncated || bytes.length > max * 4)
    escaped = `${escaped.slice(0, max)}\n… (output truncated)`;
  return escaped;
}
