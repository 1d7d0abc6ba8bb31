/**
 * Horse accepted camelCase and snake_case for every body field and query parameter. We add the other
 * spelling of each key next to the one sent, and the route schema keeps the spelling it declares
 * (Elysia strips the rest), so `target_user` and `targetUser` both reach a `targetUser` field, and
 * `oauth_name` still reaches the snake_case `UserCreate` field.
 */

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const MAX_DEPTH = 8;

export function acceptBothCases(value: unknown, deep: boolean, depth = 0): void {
  if (depth > MAX_DEPTH || !value || typeof value !== "object") return;
  if (Array.isArray(value)) {
    if (deep) for (const item of value) acceptBothCases(item, deep, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    for (const alias of [snakeToCamel(key), camelToSnake(key)]) {
      if (alias !== key && !Object.hasOwn(record, alias)) record[alias] = record[key];
    }
    if (deep) acceptBothCases(record[key], deep, depth + 1);
  }
}

/** The generated Python client writes query booleans as `True`/`False`. */
export function normalizeQueryBooleans(query: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(query)) {
    if (value === "True") query[key] = "true";
    else if (value === "False") query[key] = "false";
  }
}
