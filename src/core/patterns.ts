/**
 * Every `pattern` used in a request schema, in one place so that one test can compile each with the
 * validator's own engine (TypeBox: `new RegExp(pattern)`, no flags). So: no `\p{…}` (without the `u`
 * flag it means the letters p, {, C, }; Unicode rules are formats, see formats.ts), and `[\s\S]`, never
 * `.`, where a newline must not slip past (without the `s` flag `.` stops at line ends).
 */
const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
// C0 controls and DEL: never part of a path, a slug or a role name.
const CONTROL = "\\x00-\\x1f\\x7f";

export const PATTERNS = {
  /** A url slug: `[A-Za-z0-9_-]`, never a UUID (so url-or-id lookups never collide); empty = the id. */
  urlSlug: `^(?!${UUID}$)[A-Za-z0-9_-]*$`,
  /** A path inside a config archive: relative, no `..` segment, no backslash, no control characters. */
  relativePath: `^(?!/)(?![\\s\\S]*(^|/)\\.\\.(/|$))[^${CONTROL}\\\\]+$`,
  /** config.json `time`: `1s`, `1.5s`, `500ms`. */
  duration: "^\\d+(\\.\\d+)?(ms|s)$",
  /** config.json `memory`: `64m`, `256MB`, `512k`, `1g`, or bytes. */
  memorySize: "^\\d+(\\.\\d+)?([kKmMgG])?[bB]?$",
  /** A blob's SHA-256 in hex. */
  sha256: "^[0-9a-f]{64}$",
  /** A domain role that an invitation may grant: anything but `root` (whether it exists is checked after). */
  invitableRole: "^(?!root$)[\\s\\S]+$",
} as const;
