import { Elysia, NotFoundError, ValidationError, type TSchema } from "elysia";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { TransformDecodeCheckError } from "@sinclair/typebox/value";
import type { Logger } from "../core/logger";
import { BizError, HttpError, InputError, ServiceError } from "../core/errors";
import { requestIdOf } from "./context.plugin";
import { describeIssue, type ValidationIssue } from "./validation";
import { echoSafely } from "./input-hygiene";
import { OutageLog, outageOf } from "./outages";

/**
 * The one error mapper. Expected errors keep Horse's wire shapes: business errors are HTTP 200
 * envelopes, auth and permission refusals `{"detail": …}`, invalid input 422 with `{detail, body}`.
 * Anything unexpected is logged with its cause and request id and answered with a generic 500:
 * never SQL, stack traces or secrets.
 */
// Errors of the route checks that run in the parse phase (auth.plugin): not body-parsing failures.
const checkErrors = new WeakSet<object>();

/** Marks an error a route check threw before the body was read, so it is not taken for a bad body. */
export function checkFailed(error: unknown): unknown {
  if (error !== null && typeof error === "object") checkErrors.add(error);
  return error;
}

/**
 * The ICPC Contest API's routes (docs/contest-api.md) answer refusals in that spec's shape: every path under
 * its base, a path no route takes included (a client of that API reads no other shape).
 */
const underContestApi = (path: string) => path === "/api/ccs" || path.startsWith("/api/ccs/");

/**
 * A refusal as the Contest API says it, `{code, message}` under the HTTP status `code`: a business error of
 * ours is a 404 when something is not found (a domain hidden from the caller too), a 403 when it is hidden from
 * the caller (a hidden scoreboard), else a 400; a path no route takes a 404; the others keep their status,
 * invalid input a 400. Null: not a refusal (an unexpected error stays the generic 500).
 */
function ccsAnswer(error: unknown): { code: number; message: string } | null {
  if (error instanceof BizError) {
    const code = error.code.endsWith("NotFoundError") ? 404 : error.code.includes("Hidden") ? 403 : 400;
    return { code, message: error.message || error.code };
  }
  if (error instanceof HttpError) return { code: error.status, message: error.detail };
  if (error instanceof NotFoundError) return { code: 404, message: "Not Found: no endpoint of this API at the path" };
  if (error instanceof ServiceError || error instanceof InputError)
    return { code: error instanceof InputError ? 422 : error.status, message: error.message };
  return null;
}

export function errorsPlugin(logger: Logger) {
  const outages = new OutageLog(logger);
  return new Elysia({ name: "errors" }).onError(
    { as: "global" },
    ({ code: thrownCode, error: thrown, set, request, path }) => {
      // Elysia wraps whatever a parse hook throws (the route checks that run before the body is read, a
      // body over its limit) in a ParseError: those keep their own meaning. A check that failed for an
      // unexpected reason is a server error (logged, 500), never "the body could not be parsed".
      const cause = thrownCode === "PARSE" ? (thrown as Error).cause : undefined;
      const ours =
        cause instanceof BizError ||
        cause instanceof HttpError ||
        cause instanceof ServiceError ||
        cause instanceof InputError;
      const fromCheck = !ours && typeof cause === "object" && cause !== null && checkErrors.has(cause);
      const down = outageOf(ours ? undefined : (cause ?? thrown));
      const error = down ? outages.refuse(down, (cause ?? thrown) as Error) : ours || fromCheck ? cause : thrown;
      const code = ours || down ? "OURS" : fromCheck ? "UNKNOWN" : thrownCode;
      const contestApi = underContestApi(path) ? ccsAnswer(error) : null;
      if (contestApi) {
        set.status = contestApi.code;
        if (error instanceof ServiceError && error.retryAfterSeconds !== undefined)
          set.headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
        return contestApi;
      }
      if (error instanceof BizError) {
        set.status = 200;
        return { errorCode: error.code, errorMsg: error.message, data: null };
      }
      if (error instanceof ServiceError) {
        set.status = error.status;
        if (error.retryAfterSeconds !== undefined)
          set.headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
        return { errorCode: error.code, errorMsg: error.message, data: null };
      }
      if (error instanceof HttpError) {
        set.status = error.status;
        return { detail: error.detail };
      }
      if (error instanceof InputError) {
        set.status = 422;
        return { detail: [{ loc: error.loc, msg: error.message, type: error.type }], body: null };
      }
      if (code === "VALIDATION" && error instanceof ValidationError && error.type === "response") {
        // Our answer broke our own schema: a server bug, not the client's input.
        const requestId = requestIdOf(request);
        const issue = error.valueError;
        logger.error("response does not match its schema", {
          requestId,
          method: request.method,
          path,
          at: issue?.path,
          problem: issue?.message,
        });
        set.status = 500;
        return {
          errorCode: "InternalServerError",
          errorMsg: `internal server error (request id ${requestId})`,
          data: null,
        };
      }
      if (code === "VALIDATION" && error instanceof ValidationError) {
        if (underContestApi(path)) {
          // The Contest API's shape for a malformed request (an unknown collection, an over-long token).
          set.status = 400;
          const issue = validationBody(error, request).detail[0];
          return { code: 400, message: `${issue?.loc?.join(".") ?? "request"}: ${issue?.msg ?? "invalid"}` };
        }
        set.status = 422;
        return validationBody(error, request);
      }
      if (error instanceof TransformDecodeCheckError) {
        // Elysia decodes some schemas (unions in a query) outside its validation step: same answer.
        set.status = 422;
        return { detail: [decodeIssue(error, request)], body: null };
      }
      if (code === "PARSE") {
        set.status = 422;
        return {
          detail: [
            {
              loc: ["body"],
              msg: "the body could not be parsed as its content type says",
              type: "value_error.jsondecode",
            },
          ],
          body: null,
        };
      }
      if (code === "NOT_FOUND") {
        set.status = 404;
        return { detail: "Not Found" };
      }
      if (error instanceof UniqueConstraintViolationException) {
        // A race lost against a concurrent insert: the service checked first, so this is rare.
        set.status = 200;
        return {
          errorCode: "IntegrityError",
          errorMsg: "a record with the same unique value already exists",
          data: null,
        };
      }
      const requestId = requestIdOf(request);
      logger.error("unhandled error", { requestId, method: request.method, path, error });
      set.status = 500;
      return {
        errorCode: "InternalServerError",
        errorMsg: `internal server error (request id ${requestId})`,
        data: null,
      };
    },
  );
}

function decodeIssue(error: TransformDecodeCheckError, request: Request): ValidationIssue {
  const path = error.error?.path ?? "";
  const first = path.split("/").filter(Boolean)[0];
  const where = first !== undefined && new URL(request.url).searchParams.has(first) ? "query" : "body";
  return describeIssue(where, path, error.error?.schema ?? error.schema, error.error?.value ?? error.value);
}

function validationBody(error: ValidationError, request: Request) {
  if (error.type === "property") return propertyValidationBody(error, request);
  const where = error.type === "body" ? "body" : error.type === "params" ? "path" : error.type;
  const seen = new Set<string>();
  const detail: ValidationIssue[] = [];
  for (const issue of error.all) {
    if (!("path" in issue)) continue;
    const described = describeIssue(where, issue.path, issue.schema, issue.value);
    const key = described.loc.join("\u0000");
    if (seen.has(key)) continue; // one entry per field: unions report each branch
    seen.add(key);
    detail.push(described);
  }
  if (detail.length === 0) detail.push({ loc: [where], msg: "invalid input", type: "value_error" });
  return { detail, body: error.type === "body" ? (echoSafely(error.value) ?? null) : null };
}

/**
 * Elysia checks coerced query numbers one by one and reports a failure "on property" without the
 * property's name; the name is recovered from the query string by the value that failed.
 */
function propertyValidationBody(error: ValidationError, request: Request) {
  const failed = error.value;
  const query = new URL(request.url).searchParams;
  const name = [...query.keys()].find((key) => query.get(key) === String(failed) || Number(query.get(key)) === failed);
  const loc = name ? `/${name}` : "";
  const issue = describeIssue(
    "query",
    loc,
    (error as unknown as { validator: { schema?: TSchema } }).validator?.schema ??
      (error.all[0] as { schema?: TSchema })?.schema,
    failed,
  );
  return { detail: [issue], body: null };
}
