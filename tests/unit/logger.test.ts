import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError } from "../../src/core/env-reader";
import { createLogger, defaultLogFormat, type LogFormat } from "../../src/core/logger";
import { loadJudgeSettings } from "../../src/judge/judge-settings";
import { loadConfig } from "../../src/settings/config";

// Every secret below is distinctive, so finding any of them anywhere in the output is a leak.
const SECRETS = {
  field: "field-pw-1111",
  nested: "nested-pw-2222",
  header: "Bearer header-tok-3333",
  binding: "binding-tok-4444",
  errorProperty: "error-prop-pw-5555",
  cause: "cause-db-pw-6666",
  inArray: "array-pw-7777",
};

/** An error whose messages are harmless and whose other parts carry secrets, as a database driver's do. */
function leakyError(): Error {
  const inner = Object.assign(new Error("connection refused"), { password: SECRETS.errorProperty });
  inner.cause = { db: { host: "db", password: SECRETS.cause } };
  return new Error("cannot save the record", { cause: inner });
}

function logEverySecret(format: LogFormat): string[] {
  const lines: string[] = [];
  const logger = createLogger("info", { service: "api" }, { format, write: (line) => lines.push(line) });
  logger.child({ requestId: "r-1", session: { token: SECRETS.binding } }).error("request failed", {
    password: SECRETS.field,
    config: { db: { user: "joj", password: SECRETS.nested } },
    headers: { authorization: SECRETS.header, accept: "application/json" },
    users: [{ name: "ada", passwordHash: SECRETS.inArray }],
    error: leakyError(),
  });
  return lines;
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe("JSON lines", () => {
  test("carry time (ISO), the level's label, msg, the base fields, child bindings and the call's fields", () => {
    const lines: string[] = [];
    const logger = createLogger("debug", { service: "api" }, (line) => lines.push(line));

    logger.child({ requestId: "r-1" }).info("request done", { status: 200, route: { method: "GET" } });

    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(Object.keys(entry).sort()).toEqual(["level", "msg", "requestId", "route", "service", "status", "time"]);
    expect(entry).toMatchObject({ level: "info", msg: "request done", service: "api", requestId: "r-1", status: 200 });
    expect(entry.route).toEqual({ method: "GET" });
    expect(new Date(entry.time).toISOString()).toBe(entry.time);
  });

  test("events below the level are not written, and each level writes its own label", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", {}, (line) => lines.push(line));

    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");

    expect(lines.map((line) => JSON.parse(line).level)).toEqual(["warn", "error"]);
  });

  test("secrets are redacted in fields, nested fields, arrays, child bindings and an error's causes", () => {
    const lines = logEverySecret("json");

    expectNoSecret(lines.join("\n"));
    const entry = JSON.parse(lines[0]);
    expect(entry.password).toBe("[redacted]");
    expect(entry.config.db).toEqual({ user: "joj", password: "[redacted]" });
    expect(entry.headers).toEqual({ authorization: "[redacted]", accept: "application/json" });
    expect(entry.session).toEqual({ token: "[redacted]" });
    expect(entry.users).toEqual([{ name: "ada", passwordHash: "[redacted]" }]);
    // The error keeps what explains it: its messages, stack and the shape of its cause.
    expect(entry.error).toMatchObject({ name: "Error", message: "cannot save the record" });
    expect(entry.error.stack).toContain("cannot save the record");
    expect(entry.error.cause).toMatchObject({ message: "connection refused" });
    expect(entry.error.cause.cause).toEqual({ db: { host: "db", password: "[redacted]" } });
  });

  test("an error that is its own cause is written, not followed forever", () => {
    const lines: string[] = [];
    const error = new Error("loop");
    error.cause = error;

    createLogger("info", {}, (line) => lines.push(line)).error("failed", { error });

    expect(JSON.parse(lines[0]).error.message).toBe("loop");
  });
});

describe("pretty lines", () => {
  test("one line per event with the time, level, message and fields, not a JSON object", () => {
    const lines: string[] = [];
    const logger = createLogger("info", { service: "api" }, { format: "pretty", write: (line) => lines.push(line) });

    logger.info("api listening", { port: 34765 });
    logger.warn("judge slow", { judger: "j1" });
    logger.error("start-up failed", { error: new Error("multi\nline message") });

    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain("\n");
      expect(line.startsWith("{")).toBe(false);
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] /);
      expect(() => JSON.parse(line)).toThrow();
    }
    expect(lines[0]).toContain("INFO");
    expect(lines[0]).toContain("api listening");
    expect(lines[0]).toContain('"port":34765');
    expect(lines[0]).toContain('"service":"api"');
    expect(lines[1]).toContain("WARN");
    expect(lines[2]).toContain("ERROR");
  });

  test("secrets are redacted there too", () => {
    const lines = logEverySecret("pretty");

    expect(lines).toHaveLength(1);
    expectNoSecret(lines[0]);
    expect(lines[0]).toContain("[redacted]");
    expect(lines[0]).toContain("connection refused");
  });
});

describe("stdout", () => {
  // A child process, so stdout is a pipe: what a collector reads, and no TTY to choose pretty lines. It is
  // killed right after logging, so only lines already written (not buffered for later) reach the pipe.
  async function runLogging(env: Record<string, string>): Promise<string> {
    const logger = join(import.meta.dir, "../../src/core/logger.ts");
    const script = `
      const { createLogger } = await import(${JSON.stringify(logger)});
      const log = createLogger("info", { service: "t" });
      for (let i = 0; i < 2000; i++) log.info("event", { i, padding: "x".repeat(200) });
      process.kill(process.pid, "SIGKILL");
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { env: { PATH: process.env.PATH ?? "", ...env } });
    const [text] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    return text;
  }

  test("every line is written as it is logged, even by a process killed at once; JSON when not on a TTY", async () => {
    const lines = (await runLogging({})).trimEnd().split("\n");

    expect(lines).toHaveLength(2000);
    expect(JSON.parse(lines[1999])).toMatchObject({ service: "t", msg: "event", i: 1999 });
  });

  test("LOG_FORMAT=pretty gives pretty lines even through a pipe, without colour codes", async () => {
    const lines = (await runLogging({ LOG_FORMAT: "pretty" })).trimEnd().split("\n");

    expect(lines).toHaveLength(2000);
    expect(lines[0]).toMatch(/^\[[\d:.]+\] INFO: event \{/);
    expect(lines[0]).not.toContain("\u001b[");
  });
});

describe("LOG_FORMAT", () => {
  const judgeKey = { JUDGER_ACCESS_KEY_ID: "key-id", JUDGER_SECRET_ACCESS_KEY: "key-secret" };
  const readers = {
    server: (env: Record<string, string>) => loadConfig({ JWT_SECRET: "x", ...env }).logFormat,
    judge: (env: Record<string, string>) => loadJudgeSettings({ ...judgeKey, ...env }, []).logFormat,
  };

  for (const [name, read] of Object.entries(readers)) {
    test(`the ${name}'s settings take json or pretty, and default to the terminal's choice`, () => {
      expect(read({ LOG_FORMAT: "json" })).toBe("json");
      expect(read({ LOG_FORMAT: "pretty" })).toBe("pretty");
      expect(read({})).toBe(defaultLogFormat());
    });

    test(`the ${name}'s settings refuse any other format, by name`, () => {
      let problems: string[] = [];
      try {
        read({ LOG_FORMAT: "xml" });
      } catch (error) {
        if (error instanceof ConfigError) problems = error.problems;
      }
      expect(problems).toEqual(['LOG_FORMAT must be one of json, pretty, got "xml"']);
    });
  }
});
