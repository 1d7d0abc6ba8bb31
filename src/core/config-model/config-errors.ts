/** How config-json.ts words a config.json that its schema refuses (TypeBox's errors, made plain). */

/** A TypeBox error as Value.Errors gives it, with the branches of a union it failed. */
export type SchemaError = {
  path: string;
  message: string;
  value?: unknown;
  schema?: { anyOf?: { const?: unknown }[] };
  errors?: Iterable<SchemaError>[];
};

/** A union (a nullable group) reports only "Expected union value": its branches know what is wrong. */
export function deepest(error: SchemaError | undefined): SchemaError | undefined {
  let best = error;
  for (const branch of error?.errors ?? []) {
    for (const inner of branch) {
      const candidate = deepest(inner);
      if (candidate && (!best || candidate.path.length > best.path.length)) best = candidate;
    }
  }
  return best;
}

/** A closed list (`compare`, `scoring`) names what it accepts instead of TypeBox's "Expected union value". */
export function describe(error: SchemaError): string {
  const allowed = error.schema?.anyOf?.map((branch) => branch.const);
  if (!allowed?.length || allowed.some((value) => typeof value !== "string")) return error.message;
  return `unknown value ${JSON.stringify(error.value)} (one of ${allowed.map((v) => `"${v}"`).join(", ")})`;
}
