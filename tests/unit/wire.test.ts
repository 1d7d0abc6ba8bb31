import { describe, expect, test } from "bun:test";
import { isoTime } from "../../src/http/schemas";
import { parseTimestamp as parseTimestampInput } from "../../src/http/timestamps";
import { acceptBothCases, camelToSnake, normalizeQueryBooleans, snakeToCamel } from "../../src/core/normalize";
import { createLogger } from "../../src/core/logger";
import { ERROR_CODES } from "../../src/core/errors";

describe("timestamps", () => {
  test("out: ISO 8601 with an explicit +00:00 offset", () => {
    expect(isoTime(new Date("2022-05-07T18:18:53.451Z"))).toBe("2022-05-07T18:18:53.451+00:00");
    expect(isoTime(null)).toBeNull();
  });

  test("in: Unix seconds, or milliseconds above 2e10 as the JOJ front end sends", () => {
    expect(parseTimestampInput(1_700_000_000)?.toISOString()).toBe("2023-11-14T22:13:20.000Z");
    expect(parseTimestampInput(1_700_000_000_000)?.toISOString()).toBe("2023-11-14T22:13:20.000Z");
    expect(parseTimestampInput("1700000000")?.toISOString()).toBe("2023-11-14T22:13:20.000Z");
  });

  test("in: ISO 8601 with an offset, and without one taken as UTC (never the server's zone)", () => {
    expect(parseTimestampInput("2024-03-01T08:00:00+08:00")?.toISOString()).toBe("2024-03-01T00:00:00.000Z");
    expect(parseTimestampInput("2024-03-01T08:00:00")?.toISOString()).toBe("2024-03-01T08:00:00.000Z");
    expect(parseTimestampInput("2024-03-01T08:00:00Z")?.toISOString()).toBe("2024-03-01T08:00:00.000Z");
  });

  test("in: anything else is refused", () => {
    expect(parseTimestampInput("next tuesday")).toBeNull();
    expect(parseTimestampInput("2024-13-45T99:00:00Z")).toBeNull();
    expect(parseTimestampInput(Number.NaN)).toBeNull();
  });
});

describe("key spelling", () => {
  test("snake and camel convert both ways", () => {
    expect(snakeToCamel("target_user")).toBe("targetUser");
    expect(snakeToCamel("problem_set")).toBe("problemSet");
    expect(camelToSnake("scoreboardHidden")).toBe("scoreboard_hidden");
  });

  test("both spellings become available, the one sent wins when both are present", () => {
    const body: Record<string, unknown> = { target_user: "a", newPassword: "b", nested: { view_hidden: true } };
    acceptBothCases(body, true);
    expect(body).toMatchObject({ target_user: "a", targetUser: "a", newPassword: "b", new_password: "b" });
    expect(body.nested).toMatchObject({ view_hidden: true, viewHidden: true });
    const both: Record<string, unknown> = { targetUser: "camel", target_user: "snake" };
    acceptBothCases(both, false);
    expect(both).toEqual({ targetUser: "camel", target_user: "snake" });
  });

  test("Python-style query booleans become JSON booleans", () => {
    const query: Record<string, unknown> = { cookie: "False", other: "True", text: "Truest" };
    normalizeQueryBooleans(query);
    expect(query).toEqual({ cookie: "false", other: "true", text: "Truest" });
  });
});

describe("logger", () => {
  test("writes one JSON object per line and redacts secrets at any depth", () => {
    const lines: string[] = [];
    const logger = createLogger("info", { service: "t" }, (line) => lines.push(line));
    logger.debug("hidden below the level");
    logger.info("hello", { password: "p", nested: { accessToken: "t", ok: 1 }, Authorization: "Bearer x" });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({
      level: "info",
      msg: "hello",
      service: "t",
      password: "[redacted]",
      Authorization: "[redacted]",
    });
    expect(entry.nested).toEqual({ accessToken: "[redacted]", ok: 1 });
    expect(lines[0]).not.toContain("Bearer x");
  });
});

describe("error catalogue", () => {
  test("all 37 Horse codes, in Horse's order", () => {
    expect(ERROR_CODES).toHaveLength(37);
    expect(ERROR_CODES[0]).toBe("Success");
    expect(ERROR_CODES[4]).toBe("IllegalFieldError");
    expect(ERROR_CODES[36]).toBe("FileSystemError");
  });
});
