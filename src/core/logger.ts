import pino, { type DestinationStream } from "pino";
import { isColorSupported, prettyFactory } from "pino-pretty";
import { redactFields, type LogFields } from "./log-fields";

export type { LogFields };
export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Where lines go: stdout unless `write` takes each line (without its newline), as tests do. */
export interface LogOutput {
  format?: LogFormat;
  write?: (line: string) => void;
}

/** A person reads a terminal; anything else (a collector, a file, a pipe) parses JSON lines. */
export function defaultLogFormat(): LogFormat {
  return process.stdout.isTTY ? "pretty" : "json";
}

/**
 * One event a line on stdout, written synchronously: a process that logs and exits (a failed start-up,
 * the end of a graceful shutdown) loses no line, which a worker-thread transport could. A bare `write`
 * function means JSON, the lines a test parses.
 */
export function createLogger(
  level: LogLevel = "info",
  base: LogFields = {},
  output: LogOutput | LogOutput["write"] = {},
): Logger {
  const { format, write } = typeof output === "function" ? { format: "json" as const, write: output } : output;
  const root = pino(
    {
      level,
      // Replaces pino's default base, so no pid or hostname joins the fields we chose.
      base: redactFields(base),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        // pino's `redact` matches fixed paths only; a secret may sit under any key of any nested object.
        log: redactFields,
      },
      // An `err` field is already a plain object here; pino's serializer would rename and reshape it.
      serializers: { err: (value: unknown) => value },
    },
    sinkFor(format ?? startupFormat(), write),
  );
  return wrap(root);
}

function wrap(instance: pino.Logger): Logger {
  return {
    debug: (msg, fields) => instance.debug(fields ?? {}, msg),
    info: (msg, fields) => instance.info(fields ?? {}, msg),
    warn: (msg, fields) => instance.warn(fields ?? {}, msg),
    error: (msg, fields) => instance.error(fields ?? {}, msg),
    child: (fields) => lazyChild(instance, fields),
  };
}

/**
 * A child made on its first use: every request gets one (its id bound) and most never log. Redacted
 * here: pino's bindings formatter applies to the root's base only, never to a child's.
 */
function lazyChild(parent: pino.Logger, fields: LogFields): Logger {
  let made: Logger | null = null;
  const child = () => {
    made ??= wrap(parent.child(redactFields(fields)));
    return made;
  };
  return {
    debug: (msg, more) => child().debug(msg, more),
    info: (msg, more) => child().info(msg, more),
    warn: (msg, more) => child().warn(msg, more),
    error: (msg, more) => child().error(msg, more),
    child: (more) => child().child(more),
  };
}

/**
 * The logger made before the settings are read (to report them) already writes the format asked for, so a
 * collector behind a TTY (`docker run -t`) still gets JSON; a bad value is the settings' to report.
 */
function startupFormat(): LogFormat {
  const asked = process.env.LOG_FORMAT?.trim();
  return LOG_FORMATS.find((format) => format === asked) ?? defaultLogFormat();
}

function sinkFor(format: LogFormat, write: LogOutput["write"]): DestinationStream {
  const out = write ? (chunk: string) => write(chunk.replace(/\n$/, "")) : null;
  if (format === "json") return out ? { write: out } : stdout();
  const prettify = prettyFactory({
    singleLine: true,
    // Error-like keys would be printed over several lines; one event stays one line.
    errorLikeObjectKeys: [],
    translateTime: "SYS:HH:MM:ss.l",
    // Captured text is no terminal; stdout gets colour as the TTY, NO_COLOR and FORCE_COLOR say.
    colorize: out ? false : isColorSupported,
  });
  const target = out ?? ((line: string) => stdout().write(line));
  return { write: (chunk: string) => target(prettify(chunk)) };
}

let stdoutStream: DestinationStream | null = null;

/** Shared by every logger of the process: one writer on fd 1, not one (with its own exit hook) per logger. */
function stdout(): DestinationStream {
  stdoutStream ??= pino.destination({ dest: 1, sync: true });
  return stdoutStream;
}
