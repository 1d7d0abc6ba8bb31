/**
 * The error catalogue. Horse's ErrorCode enum, all 37 values in Horse's declaration order: the JOJ
 * clients enumerate it, so no value may move or change spelling.
 */
export const ERROR_CODES = [
  "Success",
  "Error",
  "InternalServerError",
  "UnknownFieldError",
  "IllegalFieldError",
  "IntegrityError",
  "LockError",
  "APINotImplementedError",
  "UserRegisterError",
  "UsernamePasswordError",
  "UserNotFoundError",
  "DomainNotFoundError",
  "InvalidUrlError",
  "ProblemNotFoundError",
  "ProblemSetNotFoundError",
  "ProblemGroupNotFoundError",
  "ProblemConfigNotFoundError",
  "ProblemConfigJsonNotFoundError",
  "FileValidationError",
  "FileUpdateError",
  "FileDownloadError",
  "UnsupportedLanguageError",
  "RecordNotFoundError",
  "DeleteProblemBadRequestError",
  "UserAlreadyInDomainBadRequestError",
  "DomainInvitationBadRequestError",
  "DomainInvitationExpiredError",
  "ScoreboardHiddenBadRequestError",
  "UserNotJudgerError",
  "DomainNotOwnerError",
  "DomainNotRootError",
  "DomainRoleNotFoundError",
  "DomainRoleNotUniqueError",
  "DomainRoleReadOnlyError",
  "DomainRoleUsedError",
  "DomainUserNotFoundError",
  "FileSystemError",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * An expected business failure. Rendered as HTTP 200 with its code, because the JOJ front end and
 * judger read `errorCode`, not the status. The message is shown to users: never put internals in it.
 */
export class BizError extends Error {
  constructor(
    readonly code: Exclude<ErrorCode, "Success">,
    message = "",
  ) {
    super(message);
    this.name = "BizError";
  }
}

/**
 * A framework-level refusal with Horse's `{"detail": …}` body: 401 (who are you), 403 (not allowed),
 * 400 (malformed request that is not a schema violation).
 */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 429,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "HttpError";
  }
}

export const unauthorized = (detail = "Unauthorized") => new HttpError(401, detail);

/**
 * A refusal of the request as a whole, before or instead of its business: a body too large (413) or
 * without a length (411), too many requests (429), a database or Redis that is down (503). Rendered as
 * the Horse envelope with that HTTP status, and `Retry-After` when there is a time to come back. The
 * code stays within Horse's catalogue (clients enumerate it): `Error`, told apart by the status.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: 411 | 413 | 429 | 503,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly code: ErrorCode = "Error",
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** Horse's 403 wording: `"<scope> <permission> Permission Denied."`. */
export const permissionDenied = (scope: string, permission: string) =>
  new HttpError(403, `${scope} ${permission} Permission Denied.`);

/**
 * Invalid input found beyond the schema (a redirect target off the allowlist, say): a 422 with
 * Horse's `{detail: [{loc, msg, type}]}` shape, so clients handle it like any validation error.
 */
export class InputError extends Error {
  constructor(
    readonly loc: (string | number)[],
    message: string,
    readonly type = "value_error",
  ) {
    super(message);
    this.name = "InputError";
  }
}
