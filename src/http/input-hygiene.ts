import { InputError } from "../core/errors";

/**
 * Input that would otherwise reach the database or the validator in a form they choke on: invalid
 * UTF-8 (which `Request.json()` silently turns into U+FFFD), JSON nested deep enough to exhaust a
 * recursive walk, and strings PostgreSQL cannot store (a NUL) or that are no text (a lone surrogate).
 * Each is a 422 naming where it was found.
 */
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes and parses a JSON body strictly; `undefined` for an empty one (no body). */
export function parseJsonStrict(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InputError(["body"], "the body is not valid UTF-8", "value_error.unicode");
  }
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(["body"], "the body could not be parsed as its content type says", "value_error.jsondecode");
  }
  assertShallow(value);
  return value;
}

/** Iterative, so that the check itself cannot overflow the stack it protects. */
function assertShallow(root: unknown): void {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH)
      throw new InputError(["body"], `the body is nested deeper than ${MAX_JSON_DEPTH} levels`, "value_error.nesting");
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}

// A NUL, or a surrogate that is not half of a pair.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding a NUL is the point
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Throws a 422 at the first string (or key) of `value` that is no storable text. */
export function assertStorableText(where: string, value: unknown): void {
  const stack: [unknown, (string | number)[]][] = [[value, [where]]];
  while (stack.length > 0) {
    const [item, loc] = stack.pop()!;
    if (typeof item === "string") {
      if (UNSAFE.test(item))
        throw new InputError(
          loc,
          "text may not contain NUL characters or unpaired surrogates",
          "value_error.str.unsafe",
        );
    } else if (Array.isArray(item)) {
      for (const [i, child] of item.entries()) stack.push([child, [...loc, i]]);
    } else if (item !== null && typeof item === "object" && !(item instanceof Blob)) {
      for (const [key, child] of Object.entries(item)) {
        if (UNSAFE.test(key))
          throw new InputError(
            loc,
            "field names may not contain NUL characters or unpaired surrogates",
            "value_error.str.unsafe",
          );
        stack.push([child, [...loc, key]]);
      }
    }
  }
}

const SECRET_FIELD = /pass(word)?|secret|token|credential|private/i;
const ECHO_MAX_STRING = 200;
const ECHO_MAX_ITEMS = 50;
const ECHO_MAX_DEPTH = 4;

/**
 * What a 422 may echo of the body it refused (Horse echoes it, and clients show it): never a password
 * or secret field, long strings cut, deep or long structures summarised.
 */
export function echoSafely(value: unknown, depth = 0): unknown {
  if (typeof value === "string")
    return value.length > ECHO_MAX_STRING ? `${value.slice(0, ECHO_MAX_STRING)}… (${value.length} characters)` : value;
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Blob) return `(a file of ${value.size} bytes)`;
  if (depth >= ECHO_MAX_DEPTH) return "…";
  if (Array.isArray(value)) {
    const shown = value.slice(0, ECHO_MAX_ITEMS).map((item) => echoSafely(item, depth + 1));
    return value.length > ECHO_MAX_ITEMS ? [...shown, `… (${value.length - ECHO_MAX_ITEMS} more)`] : shown;
  }
  const shown: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value).slice(0, ECHO_MAX_ITEMS)) {
    if (!SECRET_FIELD.test(key)) shown[key] = echoSafely(item, depth + 1);
  }
  return shown;
}
