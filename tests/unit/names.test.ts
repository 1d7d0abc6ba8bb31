import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  displayForm,
  identityKey,
  isEmailAddress,
  isLoginName,
  isUsername,
} from "../../src/modules/identity/credentials/names";
import { REALISTIC_NAMES } from "../fixtures/names";

// Printable text: letters of every script, digits, punctuation, symbols, spaces inside.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]+$/u;
const printableName = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 20 })
  .map((s) => s.normalize("NFC").trim())
  .filter((s) => s.length > 0 && s.length <= 64 && PRINTABLE.test(s) && !s.includes("@") && !/^\s|\s$/u.test(s));
const invisible = fc.constantFrom(
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u200b",
  "\u200d",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\u2028",
  "\ud800",
);

describe("usernames", () => {
  test("any printable Unicode name without @ or surrounding spaces is a username", () => {
    fc.assert(fc.property(printableName, (name) => isUsername(name)));
  });

  test("an invisible or control character anywhere makes it no username", () => {
    fc.assert(
      fc.property(printableName, invisible, fc.nat(), (name, bad, at) => {
        const i = at % (name.length + 1);
        return !isUsername(name.slice(0, i) + bad + name.slice(i));
      }),
    );
  });

  test("surrounding white space or an @ makes it no username", () => {
    fc.assert(
      fc.property(
        printableName,
        fc.constantFrom(" ", "\t", "\u3000", "\u00a0"),
        (name, space) => !isUsername(space + name) && !isUsername(name + space) && !isUsername(`${name}@x`),
      ),
    );
  });

  test("the stored form is NFC: one name typed two ways is one spelling and one key", () => {
    const composed = "Jos\u00e9";
    const decomposed = "Jose\u0301";
    expect(displayForm(decomposed)).toBe(composed);
    expect(identityKey(decomposed)).toBe(identityKey(composed));
    expect(isUsername(decomposed)).toBe(true);
  });

  test("keys fold case and width, and are stable", () => {
    expect(identityKey("PETER")).toBe(identityKey("peter"));
    expect(identityKey("ｐｅｔｅｒ")).toBe("peter");
    expect(identityKey("STRASSE")).toBe(identityKey("Straße"));
    expect(identityKey("ΣΟΦΟΣ")).toBe(identityKey("σοφος"));
    // The capital sharp s (U+1E9E) is its own upper case: fast-check found "ẞ" keyed apart from "ß".
    expect(identityKey("STRAẞE")).toBe(identityKey("Straße"));
    expect(identityKey("ẞ")).toBe(identityKey(identityKey("ẞ")));
    fc.assert(fc.property(printableName, (name) => identityKey(identityKey(name)) === identityKey(name)));
    fc.assert(
      fc.property(printableName, (name) => identityKey(name.toUpperCase()) === identityKey(name.toLowerCase())),
    );
  });

  test("distinct realistic names keep distinct keys", () => {
    const keys = new Set(REALISTIC_NAMES.map((p) => identityKey(p.username)));
    expect(keys.size).toBe(REALISTIC_NAMES.length);
  });
});

describe("e-mail addresses and login names", () => {
  const local = fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,15}$/);
  const label = fc.stringMatching(/^[a-z0-9]{1,10}$/);
  test("local@label.label is an address and a login name; the key folds its case", () => {
    fc.assert(
      fc.property(local, label, label, (l, d, tld) => {
        const email = `${l}@${d}.${tld}`;
        return isEmailAddress(email) && isLoginName(email) && identityKey(email.toUpperCase()) === identityKey(email);
      }),
    );
  });

  test("an address with white space, a second @ or an invisible character is refused", () => {
    fc.assert(
      fc.property(
        local,
        label,
        invisible,
        (l, d, bad) =>
          !isEmailAddress(`${l}${bad}@${d}.cn`) &&
          !isEmailAddress(`${l} x@${d}.cn`) &&
          !isEmailAddress(`${l}@@${d}.cn`),
      ),
    );
  });
});
