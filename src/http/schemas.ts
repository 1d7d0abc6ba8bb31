import { t, type TSchema } from "elysia";
import { Type, type IntegerOptions } from "@sinclair/typebox";
import { ERROR_CODES } from "../core/errors";
import { TIMESTAMP_FORMS } from "./timestamps";

/** Shared wire primitives: the envelope, lists, paging, ordering, ids and timestamps. Defined once. */

/**
 * A closed list of strings, with no implied default. Elysia's `t.UnionEnum` gives the first value as
 * the default, and request normalisation fills defaults in: a judge's case report without `state` was
 * stored as `accepted`, and renaming a problem set reset its scoreboard rule to `best`. A default, where
 * one is meant, is given explicitly.
 */
export function Choice<const V extends readonly [string, ...string[]]>(
  values: V,
  options: { title?: string; description?: string; default?: V[number] } = {},
) {
  const schema = t.UnionEnum(values, options);
  if (!("default" in options)) delete (schema as { default?: unknown }).default;
  return schema;
}

export const ErrorCodeSchema = Choice(ERROR_CODES, { title: "ErrorCode" });

/** Horse's `XxxResp`: `{errorCode, errorMsg, data}`; errorMsg is null on success. */
export const Envelope = <T extends TSchema>(data: T, title?: string) =>
  t.Object({ errorCode: ErrorCodeSchema, errorMsg: t.Nullable(t.String()), data: t.Nullable(data) }, { title });

/**
 * An integer the API writes (responses). Elysia's `t.Integer` also accepts "5" and turns it into 5, with
 * a transform, and a response schema holding any transform is encoded through TypeBox's slow,
 * uncompiled path: 40% of the CPU of a page of 100 records. Inputs keep `t.Integer`; outputs use this.
 */
export const OutInt = (options: IntegerOptions = {}) => Type.Integer(options);

/** Horse's `XxxList`: `count` is the total before paging, `results` the page. */
export const ListOf = <T extends TSchema>(item: T, title?: string) =>
  t.Object({ count: OutInt({ default: 0 }), results: t.Array(item, { default: [] }) }, { title });

export const EmptySchema = t.Object({}, { title: "Empty" });
export const EmptyResp = Envelope(EmptySchema, "EmptyResp");

export const DetailSchema = t.Object({ detail: t.String() }, { title: "Detail" });

export const Uuid = t.String({ format: "uuid", description: "a UUID" });

/** Path ids that also accept the literal `me` (users, admin). */
export const UserIdOrMe = t.Union([t.Literal("me"), Uuid], { description: "`me` or a user UUID" });

/** The OpenAPI answer of a download route: raw bytes in one of these media types. */
export function binaryResponse(description: string, ...mediaTypes: string[]) {
  const schema = { type: "string" as const, format: "binary" };
  return { 200: { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema }])) } };
}

export const DateTime = t.String({ format: "date-time", description: "ISO 8601 with an offset" });

/** An integer input that fits the database's `integer` columns (anything larger is a 422, never a 500). */
export const INT32_MAX = 2_147_483_647;
export const Int32 = (options: Parameters<typeof t.Integer>[0] = {}) =>
  t.Integer({ minimum: -INT32_MAX - 1, maximum: INT32_MAX, ...options });

export const PaginationQuery = {
  offset: t.Optional(Int32({ minimum: 0, default: 0 })),
  limit: t.Optional(t.Integer({ minimum: 0, maximum: 500, default: 100 })),
  ordering: t.Optional(t.String({ description: "comma-separated fields, `-` prefix for descending" })),
};

/** Query booleans (`cookie`): the generated Python client writes `True`/`False`; see request.plugin.ts. */
export const QueryBoolean = (fallback: boolean) => t.Optional(t.Boolean({ default: fallback }));

/** Horse's ISO timestamps, always with an explicit offset (`+00:00`), as Python clients expect. */
export function isoTime(date: Date): string;
export function isoTime(date: Date | null | undefined): string | null;
export function isoTime(date: Date | null | undefined): string | null {
  if (!date) return null;
  return date.toISOString().replace("Z", "+00:00");
}

export const TimestampInput = t.Union([t.String({ maxLength: 64 }), t.Number()], { description: TIMESTAMP_FORMS });
