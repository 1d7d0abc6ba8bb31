import { expect } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

// Answers sent as JSON text (respond.ts okJson) are checked by no one but the tests: exactly, every object
// closed (no field more), every format checked.

/** A copy of a TypeBox schema with every object closed: an extra field fails the check. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) copy[key] = closed((schema as Record<string | symbol, unknown>)[key]);
  if (copy.type === "object" && copy.properties) copy.additionalProperties = false;
  return copy;
}

export function expectConforms(schema: TSchema, response: { status: number; headers: Headers; body: unknown }) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
  expect(response.headers.get("x-request-id")).toBeTruthy();
  const check = TypeCompiler.Compile(closed(schema) as TSchema);
  expect([...check.Errors(response.body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
}
