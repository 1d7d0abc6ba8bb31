import type { TSchema } from "elysia";

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
}

/**
 * Turns one schema violation into Horse's (pydantic's) `{loc, msg, type}`. Elysia wraps coercible
 * query/path schemas in unions, whose own messages say nothing useful, so the message is derived from
 * the schema the value had to satisfy.
 */
export function describeIssue(
  where: string,
  path: string,
  schema: TSchema | undefined,
  value: unknown,
): ValidationIssue {
  const loc = [where, ...path.split("/").filter(Boolean).map(unescapePointer)];
  if (value === undefined) return { loc, msg: "field required", type: "value_error.missing" };
  const target = pickSchema(schema);
  if (!target) return { loc, msg: "invalid value", type: "value_error" };
  const kind = target.type as string | undefined;

  if (target.const !== undefined || target.anyOf) {
    const allowed = literalsOf(schema);
    if (allowed.length > 0) {
      return {
        loc,
        msg: `value is not a valid enumeration member; permitted: ${allowed.map((a) => `'${a}'`).join(", ")}`,
        type: "type_error.enum",
        ctx: { enum_values: allowed },
      };
    }
  }
  if (kind === "integer" || kind === "number") {
    const n = typeof value === "number" ? value : Number(value);
    if (
      typeof value === "boolean" ||
      value === "" ||
      !Number.isFinite(n) ||
      (kind === "integer" && !Number.isInteger(n))
    ) {
      return { loc, msg: `value is not a valid ${kind}`, type: `type_error.${kind}` };
    }
    if (typeof target.minimum === "number" && n < target.minimum) {
      return {
        loc,
        msg: `ensure this value is greater than or equal to ${target.minimum}`,
        type: "value_error.number.not_ge",
        ctx: { limit_value: target.minimum },
      };
    }
    if (typeof target.maximum === "number" && n > target.maximum) {
      return {
        loc,
        msg: `ensure this value is less than or equal to ${target.maximum}`,
        type: "value_error.number.not_le",
        ctx: { limit_value: target.maximum },
      };
    }
  }
  if (kind === "boolean") return { loc, msg: "value could not be parsed to a boolean", type: "type_error.bool" };
  if (kind === "string") {
    if (typeof value !== "string") return { loc, msg: "str type expected", type: "type_error.str" };
    if (typeof target.minLength === "number" && value.length < target.minLength) {
      return {
        loc,
        msg: `ensure this value has at least ${target.minLength} characters`,
        type: "value_error.any_str.min_length",
        ctx: { limit_value: target.minLength },
      };
    }
    if (typeof target.maxLength === "number" && value.length > target.maxLength) {
      return {
        loc,
        msg: `ensure this value has at most ${target.maxLength} characters`,
        type: "value_error.any_str.max_length",
        ctx: { limit_value: target.maxLength },
      };
    }
    if (target.format === "uuid") return { loc, msg: "value is not a valid uuid", type: "type_error.uuid" };
    if (target.format === "email") return { loc, msg: "value is not a valid email address", type: "value_error.email" };
    if (target.format) {
      const msg =
        typeof target.errorMessage === "string" ? target.errorMessage : `value is not a valid ${target.format}`;
      return { loc, msg, type: `value_error.${target.format}` };
    }
    if (target.pattern) {
      const msg =
        typeof target.errorMessage === "string"
          ? target.errorMessage
          : `string does not match regex "${target.pattern}"`;
      return { loc, msg, type: "value_error.str.regex", ctx: { pattern: target.pattern } };
    }
  }
  if (kind === "object") return { loc, msg: "value is not a valid dict", type: "type_error.dict" };
  if (kind === "array") return { loc, msg: "value is not a valid list", type: "type_error.list" };
  return { loc, msg: "invalid value", type: "value_error" };
}

/** The schema that matters inside Elysia's coercion unions: the first non-string-coercion branch. */
function pickSchema(schema: TSchema | undefined): TSchema | undefined {
  if (!schema) return undefined;
  const branches = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  if (!branches) return schema;
  if (branches.every((b) => b.const !== undefined)) return schema;
  const typed = branches.find((b) => b.type && b.type !== "string") ?? branches.find((b) => b.type) ?? branches[0];
  return pickSchema(typed);
}

function literalsOf(schema: TSchema | undefined): unknown[] {
  if (!schema) return [];
  if (schema.const !== undefined) return [schema.const];
  const branches = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  return branches ? branches.flatMap(literalsOf) : [];
}

function unescapePointer(segment: string): string | number {
  const text = segment.replace(/~1/g, "/").replace(/~0/g, "~");
  return /^\d+$/.test(text) ? Number(text) : text;
}
