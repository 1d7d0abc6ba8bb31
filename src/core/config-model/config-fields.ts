import type { TSchema } from "@sinclair/typebox";
import { snakeToCamel } from "../normalize";

/**
 * The first field of a config.json that its schema does not know, as a JSON path, or null. Horse's
 * parser dropped such fields without a word, so a misspelt `"compileArgz"` or a `"preset"` meant for
 * another judge was judged as if it were absent; here it is refused with its path. Keys are matched in
 * either case (`compile_args` is `compileArgs`), as the rest of config.json is.
 */
export function unknownField(schema: TSchema, value: unknown, path = ""): string | null {
  if (value === null || typeof value !== "object") return null;
  const branch = Array.isArray(value) ? pick(schema, "array") : pick(schema, "object");
  if (!branch) return null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unknownField(branch.items as TSchema, item, `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  const properties = (branch.properties ?? {}) as Record<string, TSchema>;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const known = Object.hasOwn(properties, key) ? key : snakeToCamel(key);
    if (!Object.hasOwn(properties, known)) return `${path}/${key}`;
    const found = unknownField(properties[known], inner, `${path}/${key}`);
    if (found) return found;
  }
  return null;
}

/** The schema itself, or the branch of a union (a nullable group), that describes an object or an array. */
function pick(schema: TSchema, type: "object" | "array"): TSchema | null {
  if (schema.type === type) return schema;
  for (const option of (schema.anyOf ?? []) as TSchema[]) if (option.type === type) return option;
  return null;
}
