import { UnrecoverableError } from "bullmq";
import { BizError, ERROR_CODES, type ErrorCode } from "../core/errors";

const PREFIX = "biz:";

/**
 * A handler's business error travels through BullMQ as its failure reason (`biz:<Code>:<message>`)
 * and is not retried: the input is wrong, trying again changes nothing. Anything else is retried.
 */
export function errorToJobFailure(error: unknown): unknown {
  if (error instanceof BizError) return new UnrecoverableError(`${PREFIX}${error.code}:${error.message}`);
  return error;
}

export function jobFailureToError(reason: string): Error {
  const at = reason.indexOf(PREFIX);
  if (at >= 0) {
    const rest = reason.slice(at + PREFIX.length);
    const colon = rest.indexOf(":");
    const code = rest.slice(0, colon) as ErrorCode;
    if (colon > 0 && (ERROR_CODES as readonly string[]).includes(code) && code !== "Success") {
      return new BizError(code as Exclude<ErrorCode, "Success">, rest.slice(colon + 1));
    }
  }
  return new Error(`job failed: ${reason}`);
}
