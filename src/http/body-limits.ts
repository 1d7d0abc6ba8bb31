import type { Config } from "../config";
import { ServiceError } from "../errors";
import { DEFAULT_ARCHIVE_LIMITS } from "../modules/problem-configs/archive-reader";

/**
 * How large a request body may be, by route class, checked before anything reads it: from
 * Content-Length when the request starts (onRequest), and while streaming for a body without one: any
 * non-multipart body in the parse phase (context.plugin), a multipart upload once the route's checks
 * passed (auth.plugin). Nothing reads a body past its limit, so Bun's own limit stays out of the way.
 */
export interface BodyLimits {
  json: number;
  submission: number;
  archive: number;
}

// Multipart framing: boundaries and part headers around the files themselves.
const MULTIPART_SLACK = 64 * 1024;

export function bodyLimitsOf(config: Config): BodyLimits {
  return {
    json: config.bodyMaxBytes,
    submission: config.submissions.maxTotalBytes + MULTIPART_SLACK,
    archive: DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes + MULTIPART_SLACK,
  };
}

/**
 * Bun's `maxRequestBodySize`: far above every route's limit, so that a declared length over a route's
 * limit reaches our check and is refused in the envelope, rather than by Bun with a bare 413.
 */
export const BUN_BODY_LIMIT = 2 ** 40;

const SUBMIT = /^\/api\/v1\/domains\/[^/]+\/(?:problems\/[^/]+|problem_sets\/[^/]+\/problems\/[^/]+\/submit)\/?$/;
const CONFIG_UPLOAD = /^\/api\/v1\/domains\/[^/]+\/problems\/[^/]+\/configs\/?$/;

export function bodyLimitFor(method: string, path: string, limits: BodyLimits): number {
  if (method === "POST" && SUBMIT.test(path)) return limits.submission;
  if (method === "POST" && CONFIG_UPLOAD.test(path)) return limits.archive;
  return limits.json;
}

export const bodyTooLarge = (limit: number) =>
  new ServiceError(413, `the request body is larger than this route accepts (${limit} bytes)`);

/** Refuses, from the headers alone, a body that says it is too large (or says no length at all). */
export function checkDeclaredBody(request: Request, path: string, limits: BodyLimits): void {
  const declared = request.headers.get("content-length");
  if (declared === null) return;
  if (!/^\d{1,15}$/.test(declared.trim())) throw new ServiceError(411, "Content-Length is not a length");
  const limit = bodyLimitFor(request.method, path, limits);
  if (Number(declared) > limit) throw bodyTooLarge(limit);
}

/**
 * A multipart body without Content-Length, read with the route's limit and turned into the fields
 * object Elysia's own parser makes (a repeated field becomes a list); undefined for any other body.
 */
export async function readUndeclaredForm(request: Request, contentType: string | undefined, limits: BodyLimits) {
  if (request.headers.has("content-length") || !request.body || !/^multipart\//i.test(contentType ?? "")) return undefined;
  const bytes = await readLimited(request.body, bodyLimitFor(request.method, new URL(request.url).pathname, limits));
  const form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  const fields: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    const values = form.getAll(key);
    fields[key] = values.length === 1 ? values[0] : values;
  }
  return fields;
}

/** Reads a body stream, stopping (413) as soon as it passes `limit`. */
export async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
