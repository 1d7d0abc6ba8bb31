import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FormatRegistry } from "@sinclair/typebox";
import "elysia";
import "@elysiajs/openapi";
import { elysiaDateTime, installFastFormats, isPlainDateTime } from "../../src/http/fast-formats";
import { isoTime } from "../../src/http/schemas";

installFastFormats();
const dateTime = FormatRegistry.Get("date-time")!;
const uuid = FormatRegistry.Get("uuid")!;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

// Strings shaped like RFC 3339, each field drawn also just out of its range.
const shaped = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constant("Z"),
      fc.tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 })),
    ),
  })
  .map(({ year, month, day, hour, minute, second, fraction, zone }) => {
    const offset = typeof zone === "string" ? zone : `${zone[0]}${pad(zone[1])}:${pad(zone[2])}`;
    const time = `${pad(hour)}:${pad(minute)}:${pad(second)}${fraction === undefined ? "" : `.${fraction}`}`;
    return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${time}${offset}`;
  });

describe("the date-time check (fast-formats.ts)", () => {
  test("what the fast path accepts, Elysia's check accepts too: the format accepts what it did", () => {
    fc.assert(
      fc.property(shaped, (value) => {
        if (isPlainDateTime(value)) expect(elysiaDateTime(value)).toBe(true);
        expect(dateTime(value)).toBe(elysiaDateTime(value));
      }),
      { numRuns: 20_000 },
    );
  });

  test("any string: the installed check says what Elysia's says", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          // Any code point: a NUL, a surrogate, Chinese text.
          fc.string({ unit: "binary" }),
          shaped.map((s) => s.replace("T", " ")),
          shaped.map((s) => ` ${s}`),
          shaped.map((s) => `${s}\u0000`),
          // Full-width digits, which no `\d` takes.
          shaped.map((s) => s.replace(/\d/, (d) => String.fromCharCode(0xff10 + Number(d)))),
        ),
        (v) => {
          expect(dateTime(v)).toBe(elysiaDateTime(v));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  test("every time the API writes, and JavaScript's own, pass on the fast path", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1970-01-01"), max: new Date("2999-12-31"), noInvalidDate: true }), (d) => {
        expect(isPlainDateTime(isoTime(d))).toBe(true);
        expect(isPlainDateTime(d.toISOString())).toBe(true);
      }),
    );
  });

  test("out of range or malformed: not on the fast path", () => {
    for (const value of [
      "２０２６-11-24T02:00:00Z",
      "2026-11-24T02:00:00Z\u0000",
      "2026-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-24T24:00:00Z",
      "2026-11-24T02:60:00Z",
      "2026-11-24T02:00:60Z",
      "2026-11-24T02:00:00+24:00",
      "2026-11-24T02:00:00",
      "2026-11-24t02:00:00Z",
      "2026-11-24T02:00:00.Z",
      "2026-11-24T02:00:00.1234567890Z",
    ])
      expect(isPlainDateTime(value)).toBe(false);
    expect(isPlainDateTime("2024-02-29T23:59:59.999999999-12:30")).toBe(true);
    // Elysia's own check, still asked off the fast path, is laxer: a JavaScript Date's text, February 30.
    expect(dateTime("Tue Nov 24 2026 02:00:00 GMT+0000 (Coordinated Universal Time)")).toBe(true);
    expect(dateTime("2026-02-30T00:00:00Z")).toBe(true);
  });
});

test("the uuid check is one expression: any case, no braces or urn prefix", () => {
  expect(uuid("5F8C5BD8-a41c-4586-a384-25192b16ecad")).toBe(true);
  for (const value of ["urn:uuid:5f8c5bd8-a41c-4586-a384-25192b16ecad", "{5f8c5bd8-a41c-4586-a384-25192b16ecad}", ""])
    expect(uuid(value)).toBe(false);
});
