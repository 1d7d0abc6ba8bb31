export type LogFields = Record<string, unknown>;

export const REDACTED_FIELD = "[redacted]";

// Keys whose values must never reach a log line, whatever object they arrive in.
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|csrf|hash/i;

// Deeper than this a value is logged as it is (an Error without its cause): fields are meant to be flat,
// and a cycle (an error that is its own cause) must end somewhere.
const MAX_DEPTH = 4;

/**
 * A copy of the fields with every secret-named key's value replaced, at any depth, and every Error made a
 * plain {name, message, stack, cause}: its other properties (a driver's config, a request) are left out,
 * and its cause is redacted like any field. Objects inside arrays are redacted too.
 */
export function redactFields(fields: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = isSecretKey(key) ? REDACTED_FIELD : redactValue(value, depth);
  }
  return out;
}

// The same few keys come with every line (the access log's five, every request): each is tested once.
const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_KEPT = 1_000;

function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretKeys.size < SECRET_KEYS_KEPT) secretKeys.set(key, secret);
  }
  return secret;
}

function redactValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      stack: value.stack,
      cause: value.cause && depth < MAX_DEPTH ? redactValue(value.cause, depth + 1) : undefined,
    };
  }
  // A Date has no keys of its own: copied key by key it would log as {}.
  if (!value || typeof value !== "object" || value instanceof Date || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return redactFields(value as LogFields, depth + 1);
}
