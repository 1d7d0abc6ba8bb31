import type { Config } from "../settings/config";
import { InputError, ServiceError } from "../core/errors";
import { parseJsonStrict } from "./input-hygiene";
import { assertMultipartText, parseUrlEncodedStrict } from "./form-text";

/**
 * How large a request body may be, by route class, checked before anything reads it: from
 * Content-Length when the request starts (onRequest), and while streaming for a body without one, by
 * parseBody, which runs only once the route's checks passed: authentication and every permission
 * check that needs no body come first. Nothing reads a body past its limit, so Bun's limit stays out
 * of the way.
 */
export interface BodyLimits {
  json: number;
  submission: number;
  /** A run's: a submission's files and the user's input. */
  run: number;
  archive: number;
}

/**
 * The largest config archive or problem package an upload may carry (archive-reader.ts's limits start from it):
 * a package is a whole contest's export, its cases and images, as sent (an FPS .xml) or zipped.
 */
export const ARCHIVE_MAX_BYTES = 64 * 1024 * 1024;

// Multipart framing: boundaries and part headers around the files themselves.
const MULTIPART_SLACK = 64 * 1024;

export function bodyLimitsOf(config: Config): BodyLimits {
  return {
    json: config.bodyMaxBytes,
    submission: config.submissions.maxTotalBytes + MULTIPART_SLACK,
    run: config.submissions.maxTotalBytes + config.runs.inputMaxBytes + MULTIPART_SLACK,
    archive: ARCHIVE_MAX_BYTES + MULTIPART_SLACK,
  };
}

/**
 * Bun's `maxRequestBodySize`: far above every route's limit, so that a declared length over a route's
 * limit reaches our check and is refused in the envelope, rather than by Bun with a bare 413.
 */
export const BUN_BODY_LIMIT = 2 ** 40;

const SUBMIT = /^\/api\/v1\/domains\/[^/]+\/(?:problems\/[^/]+|problem_sets\/[^/]+\/problems\/[^/]+\/submit)\/?$/;
const RUN = /^\/api\/v1\/domains\/[^/]+\/(?:problem_sets\/[^/]+\/)?problems\/[^/]+\/runs\/?$/;
const CONFIG_UPLOAD = /^\/api\/v1\/domains\/[^/]+\/problems\/[^/]+\/configs\/?$/;
const PACKAGE_UPLOAD = /^\/api\/v1\/domains\/[^/]+\/problem_packages\/?$/;

export function bodyLimitFor(method: string, path: string, limits: BodyLimits): number {
  if (method === "POST" && SUBMIT.test(path)) return limits.submission;
  if (method === "POST" && RUN.test(path)) return limits.run;
  if (method === "POST" && (CONFIG_UPLOAD.test(path) || PACKAGE_UPLOAD.test(path))) return limits.archive;
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
 * The body of a request whose route's checks have passed (auth.plugin's gates; the few open routes
 * call it themselves), read with the route's limit (a body without a length counted as it streams):
 * JSON decoded strictly (input-hygiene.ts), forms with every text field checked as UTF-8 from its raw
 * bytes (form-text.ts), before the form is parsed.
 */
export async function parseBody(
  request: Request,
  contentType: string | undefined,
  limits: BodyLimits,
): Promise<unknown> {
  if (!request.body || request.headers.get("content-length") === "0") return undefined;
  const type = contentType ?? "";
  const limit = bodyLimitFor(request.method, new URL(request.url).pathname, limits);
  const bytes = await readLimited(request.body, limit);
  if (/^application\/json/i.test(type)) return parseJsonStrict(bytes) ?? {};
  if (/^multipart\//i.test(type)) {
    const header = request.headers.get("content-type") ?? "";
    assertMultipartText(bytes, header);
    const form = await new Response(bytes, { headers: { "content-type": header } }).formData().catch(() => {
      throw new InputError(["body"], "the body could not be parsed as its content type says", "value_error.multipart");
    });
    return fieldsOf(form as unknown as FormData);
  }
  if (/^application\/x-www-form-urlencoded/i.test(type)) return parseUrlEncodedStrict(bytes);
  return new TextDecoder().decode(bytes);
}

/** Form fields as Elysia's own parser makes them: a repeated field becomes a list. */
function fieldsOf(form: FormData): Record<string, unknown> {
  // Own properties whatever the name ("__proto__" included), as for URL-encoded forms.
  return Object.fromEntries(
    [...new Set(form.keys())].map((key) => {
      const values = form.getAll(key);
      return [key, values.length === 1 ? values[0] : values];
    }),
  );
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
