export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Keys whose values must never reach a log line, whatever object they arrive in.
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|csrf|hash/i;

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** One JSON object per line on stdout: what log collectors parse without configuration. */
export function createLogger(
  level: LogLevel = "info",
  base: LogFields = {},
  write: (line: string) => void = defaultWrite,
): Logger {
  const threshold = LEVELS[level];
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVELS[lvl] < threshold) return;
    const entry = { time: new Date().toISOString(), level: lvl, msg, ...base, ...(fields ? redact(fields) : {}) };
    write(JSON.stringify(entry));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger(level, { ...base, ...redact(fields) }, write),
  };
}

function defaultWrite(line: string): void {
  process.stdout.write(`${line}\n`);
}

function redact(fields: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEY.test(key)) out[key] = "[redacted]";
    else out[key] = redactValue(value, depth);
  }
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      stack: value.stack,
      cause: value.cause ? redactValue(value.cause, depth + 1) : undefined,
    };
  }
  if (value && typeof value === "object" && !Array.isArray(value) && depth < 4)
    return redact(value as LogFields, depth + 1);
  return value;
}
