export type Env = Record<string, string | undefined>;

/** What any process of ours may take from the machine: where programs are, the locale, the time zone. */
export const MACHINE_VARIABLES = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"] as const;

/** The named variables of an environment and nothing else: a child's environment from an allow-list. */
export function pickEnv(env: Env, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** Typed reads of environment variables; every bad value is added to `problems`, by name, for one report. */
export class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  }

  optional(name: string): string | undefined {
    return this.raw(name);
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  list(name: string): string[] {
    return (this.raw(name) ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return n;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(value)) return true;
    if (["0", "false", "no", "off"].includes(value)) return false;
    this.problems.push(`${name} must be true or false, got "${value}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name} must be one of ${allowed.join(", ")}, got "${value}"`);
    return fallback;
  }

  url(name: string, fallback: string): string | undefined {
    return this.optionalUrl(name, ["http:", "https:"]) ?? fallback;
  }

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) throw new Error("protocol");
      return value;
    } catch {
      this.problems.push(`${name} must be a ${protocols.map((p) => p.replace(":", "://")).join(" or ")} URL`);
      return undefined;
    }
  }

  origin(name: string, value: string): string {
    try {
      return new URL(value).origin;
    } catch {
      this.problems.push(`${name} must list origins such as https://joj.example.edu, got "${value}"`);
      return value;
    }
  }
}

/** Every bad or missing setting of a program, reported together, by name. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}
