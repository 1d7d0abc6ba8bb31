/**
 * The last line of defence against a secret leaking through a program's output: before a case's
 * output is stored, the exact values of the secrets this process knows are cut out. The sandbox is what
 * keeps secrets away from programs; this catches a path nobody has thought of yet, and says so.
 */
export const REDACTED = "[redacted]";

/** Shorter values are too likely to be ordinary text ("joj", a port) to be cut out of a student's output. */
const MIN_SECRET_LENGTH = 8;

/** Names whose values are secrets wherever they appear: keys, passwords, tokens, connection URLs. */
const SECRET_NAME = /SECRET|PASSWORD|PASSWD|TOKEN|_KEY(_ID)?$|^DATABASE_URL$|^REDIS_URL$|^PG/;

export class Redactor {
  private readonly values: string[];

  constructor(values: Iterable<string | null | undefined>) {
    const kept = new Set<string>();
    for (const value of values) {
      if (!value || value.length < MIN_SECRET_LENGTH) continue;
      kept.add(value);
      // A connection URL's password alone is a secret too (it may be printed apart from the URL).
      const password = urlPassword(value);
      if (password && password.length >= MIN_SECRET_LENGTH) kept.add(password);
    }
    // Longest first, so a URL is cut whole before the password inside it.
    this.values = [...kept].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.values.length;
  }

  /** The text with every secret value replaced, and how many were cut. */
  redact(text: string): { text: string; hits: number } {
    let hits = 0;
    let out = text;
    for (const value of this.values) {
      if (!out.includes(value)) continue;
      const parts = out.split(value);
      hits += parts.length - 1;
      out = parts.join(REDACTED);
    }
    return { text: out, hits };
  }
}

/** The values of every variable with a secret's name in an environment. */
export function secretValuesOf(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && SECRET_NAME.test(name))
    .map(([, value]) => value!);
}

function urlPassword(value: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null;
  try {
    const password = new URL(value).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}
