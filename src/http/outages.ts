import { ConnectionException } from "@mikro-orm/core";
import { SQL } from "bun";
import type { Logger } from "../core/logger";
import { ServiceError } from "../core/errors";

/**
 * PostgreSQL or Redis being down (restarting, unreachable) is not a bug of the request: it is answered
 * 503 with `Retry-After`, and logged as one line per outage, not a stack trace per request. An outage
 * ends after QUIET_MS without such a failure; the next failure starts a new one. Recovery needs
 * nothing: the pools reconnect by themselves.
 */
export type Service = "PostgreSQL" | "Redis";

const QUIET_MS = 10_000;
const PG_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006", "53300"]);
/** Bun's own PostgreSQL client (the hot reads' pool, db/statements.ts): a connection that failed or is gone. */
const BUN_PG_CODES = /^ERR_POSTGRES_(CONNECTION_(CLOSED|REFUSED|FAILED|TIMEOUT)|IDLE_TIMEOUT|LIFETIME_TIMEOUT)$/;
const PG_MESSAGES = new RegExp(
  [
    "Connection terminated",
    "ECONNREFUSED",
    "ECONNRESET",
    "EPIPE",
    "ETIMEDOUT",
    "timeout exceeded when trying to connect",
    "the database system is (starting up|shutting down|in recovery mode)",
    "terminating connection due to administrator command",
    "Connection ended unexpectedly",
    "connection error",
  ].join("|"),
  "i",
);
const REDIS_MESSAGES =
  /Connection is closed|max retries per request|Stream isn't writeable|ECONNREFUSED.*6379|Redis connection/i;

/** Which service an error says is down, or null for any other error. */
export function outageOf(error: unknown): Service | null {
  if (!(error instanceof Error)) return null;
  if (error instanceof SQL.PostgresError)
    return BUN_PG_CODES.test(error.code) || PG_CODES.has(error.errno ?? "") ? "PostgreSQL" : null;
  const code = (error as { code?: unknown; sqlState?: unknown }).code ?? (error as { sqlState?: unknown }).sqlState;
  if (error instanceof ConnectionException || (typeof code === "string" && PG_CODES.has(code))) return "PostgreSQL";
  const said = `${error.name} ${error.message}`;
  if (
    /DriverException|DatabaseError|pg|Kysely/i.test(error.name + (error.stack ?? "").slice(0, 400)) &&
    PG_MESSAGES.test(said)
  )
    return "PostgreSQL";
  if (/MaxRetriesPerRequestError|ReplyError|Redis/i.test(error.name) || REDIS_MESSAGES.test(said)) return "Redis";
  return null;
}

export class OutageLog {
  private readonly current = new Map<Service, { since: number; last: number; refused: number }>();

  constructor(private readonly logger: Logger) {}

  /** Records a refused request; logs only the first of an outage. Returns the 503 to answer. */
  refuse(service: Service, error: Error): ServiceError {
    const now = Date.now();
    const outage = this.current.get(service);
    if (!outage || now - outage.last > QUIET_MS) {
      if (outage)
        this.logger.info(`${service} outage over`, {
          service,
          refused: outage.refused,
          seconds: Math.round((outage.last - outage.since) / 1000),
        });
      this.logger.warn(`${service} unavailable: answering 503 until it is back`, { service, reason: error.message });
      this.current.set(service, { since: now, last: now, refused: 1 });
    } else {
      outage.last = now;
      outage.refused++;
    }
    return new ServiceError(
      503,
      `${service === "PostgreSQL" ? "the database" : "the queue store (Redis)"} is unavailable: try again in a few ` +
        `seconds`,
      5,
    );
  }
}
