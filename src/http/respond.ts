/** The success envelope. Business failures are thrown as BizError and rendered by errors.plugin.ts. */
export function ok<T>(data: T): { errorCode: "Success"; errorMsg: null; data: T } {
  return { errorCode: "Success", errorMsg: null, data };
}

export function okList<T>(page: { count: number; results: T[] }): {
  errorCode: "Success";
  errorMsg: null;
  data: { count: number; results: T[] };
} {
  return ok({ count: page.count, results: page.results });
}

/** A page of rows as a `{count, results}` envelope, each row through its view mapper. */
export function okPage<Row, View>(page: { count: number; results: Row[] }, toView: (row: Row) => View) {
  return okList({ count: page.count, results: page.results.map((row) => toView(row)) });
}

/**
 * The success envelope around a `data` value that PostgreSQL wrote as JSON text (the hot reads): the
 * text goes out as it came, never parsed and written again. Elysia checks no returned Response against
 * the route's `response` schema (that check was half the CPU of a page of 100 records), so
 * tests/http/sql-written.test.ts checks these routes' answers against their schemas instead, exactly
 * (no field more or less). The schema still declares the route in the OpenAPI document.
 *
 * The headers set so far (the request id) go on the Response here: with any left in `set`, Elysia
 * copies the Response into a new one around its body stream.
 */
export function okJson(set: ResponseSet, dataJson: string): Response {
  return new Response(`{"errorCode":"Success","errorMsg":null,"data":${dataJson}}`, { headers: takeHeaders(set) });
}

/**
 * okJson for a `data` value the app made: Response.json writes the envelope's bytes in one native pass, where
 * JSON.stringify and then a Response of that text cost the record list 2.6x as much (bench:reads' profile).
 */
export function okValue(set: ResponseSet, data: unknown): Response {
  return Response.json({ errorCode: "Success", errorMsg: null, data }, { headers: takeHeaders(set) });
}

type ResponseSet = { headers: Record<string, unknown> };

/** The headers set so far, moved from `set` onto a JSON Response's own (see okJson). */
function takeHeaders(set: ResponseSet): Headers {
  const headers = new Headers(set.headers as Record<string, string>);
  headers.set("content-type", "application/json;charset=utf-8");
  set.headers = {};
  return headers;
}

/**
 * encodeURIComponent, and ! ' ( ) * escaped too: a name so encoded is one URL path segment that a Markdown
 * link `](…)` or a quoted HTML attribute holds as it is, and an RFC 5987 value (filename*).
 */
export const encodeStrictly = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A Content-Disposition for a file named by someone else (RFC 6266): an ASCII fallback with anything that
 * could end or split the header's quoted string replaced, then the exact name as filename*.
 */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const fallback = name.replace(/[^A-Za-z0-9._-]/g, "_") || "file";
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeStrictly(name)}`;
}
