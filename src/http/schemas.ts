import { t, type TSchema } from "elysia";
import { ERROR_CODES } from "../errors";

/** Shared wire primitives: the envelope, lists, paging, ordering, ids and timestamps. Defined once. */

export const ErrorCodeSchema = t.UnionEnum(ERROR_CODES, { title: "ErrorCode" });

/** Horse's `XxxResp`: `{errorCode, errorMsg, data}`; errorMsg is null on success. */
export const Envelope = <T extends TSchema>(data: T, title?: string) =>
  t.Object(
    { errorCode: ErrorCodeSchema, errorMsg: t.Nullable(t.String()), data: t.Nullable(data) },
    { title },
  );

/** Horse's `XxxList`: `count` is the total before paging, `results` the page. */
export const ListOf = <T extends TSchema>(item: T, title?: string) =>
  t.Object({ count: t.Integer({ default: 0 }), results: t.Array(item, { default: [] }) }, { title });

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

export const PaginationQuery = {
  offset: t.Optional(t.Integer({ minimum: 0, default: 0 })),
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

/** Timestamps in: Unix seconds, or milliseconds above 2e10 (what the JOJ front end sends). */
const MILLISECOND_THRESHOLD = 2e10;

export function parseTimestampInput(value: string | number): Date | null {
  if (typeof value === "number" || /^-?\d+(\.\d+)?$/.test(value.trim())) {
    const n = Number(value);
    if (!Number.isFinite(n)) return null;
    return new Date(Math.abs(n) > MILLISECOND_THRESHOLD ? n : n * 1000);
  }
  // ISO 8601 only: Date.parse also takes loose formats that would be read in the server's zone.
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value.trim())) return null;
  const trimmed = value.trim();
  // A timestamp without an offset is taken as UTC, never as the server's local time.
  const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(trimmed) || trimmed.length === 10 ? trimmed : `${trimmed}Z`;
  const date = new Date(withZone);
  return Number.isNaN(date.getTime()) ? null : date;
}

export const TimestampInput = t.Union([t.String(), t.Number()], {
  description: "ISO 8601, or Unix time in seconds (milliseconds when larger than 2e10)",
});
