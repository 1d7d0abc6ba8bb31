/**
 * The one definition of account names and e-mail addresses, used by password and OAuth registration,
 * judger creation, login and member search. A name is any printable Unicode text: Chinese, accented
 * Latin, spaces inside. What is refused is what makes a name unreadable or deceptive on screen.
 */

export const USERNAME_MAX_LENGTH = 64;
export const EMAIL_MAX_LENGTH = 320;

// Checked with the `u` flag, so `\p{…}` means Unicode properties (without it, the letters p, {, C, }).
// C = control, format (zero-width, bidi overrides), surrogate, private-use and unassigned code points;
// Zl/Zp = line and paragraph separators, which break a name across lines.
const HIDDEN = "\\p{C}\\p{Zl}\\p{Zp}";
const USERNAME_RE = new RegExp(`^[^\\s@${HIDDEN}](?:[^@${HIDDEN}]*[^\\s@${HIDDEN}])?$`, "u");
// Deliberately loose (the mail server is the judge of the local part), but one `@`, a dotted domain,
// and nothing invisible anywhere.
const EMAIL_RE = new RegExp(`^[^\\s@${HIDDEN}]+@[^\\s@${HIDDEN}]+\\.[^\\s@${HIDDEN}]+$`, "u");

export const USERNAME_RULE =
  "a username is printable text without '@', control or invisible characters, or surrounding spaces";
export const EMAIL_RULE = "value is not a valid email address";

/** True for a registrable username (checked on the NFC form that is stored). */
export function isUsername(value: string): boolean {
  return value.length <= USERNAME_MAX_LENGTH && USERNAME_RE.test(value.normalize("NFC"));
}

export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_RE.test(value.normalize("NFC"));
}

/** What a login form may carry: a username or an e-mail address, surrounding spaces forgiven. */
export function isLoginName(value: string): boolean {
  const trimmed = value.trim();
  return isUsername(trimmed) || isEmailAddress(trimmed);
}

/** The form that is stored and shown: NFC, so that "José" typed two ways is one spelling. */
export function displayForm(value: string): string {
  return value.normalize("NFC");
}

/**
 * The form compared for uniqueness and looked up at login: compatibility-normalised (NFKC, so a
 * full-width "ｐｅｔｅｒ" is "peter") and case-folded. Lower-, upper- then lower-casing folds what
 * lower-casing alone misses ("STRASSE" = "straße" = "STRAẞE", final sigma = sigma). Upper-casing first
 * left the capital sharp s (U+1E9E, whose upper case is itself) as "ß": "STRAẞE" was not "Straße", and
 * a key was not its own key. Checked over every code point: this key is stable and case-blind.
 */
export function identityKey(value: string): string {
  return value.normalize("NFKC").toLowerCase().toUpperCase().toLowerCase().normalize("NFKC");
}
