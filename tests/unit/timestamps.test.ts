import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parseTimestamp, readTimestamp } from "../../src/http/timestamps";
import { InputError } from "../../src/core/errors";

const iso = (value: string | number) => parseTimestamp(value)?.toISOString() ?? null;

describe("the one timestamp parser", () => {
  test("a naive ISO time (Python's datetime.now().isoformat()) is UTC, microseconds cut to ms", () => {
    expect(iso("2026-11-23T18:42:13.430123")).toBe("2026-11-23T18:42:13.430Z");
    expect(iso("2026-11-23 18:42")).toBe("2026-11-23T18:42:00.000Z");
    expect(iso("2026-11-23")).toBe("2026-11-23T00:00:00.000Z");
  });

  test("offsets in every ISO spelling", () => {
    expect(iso("2026-11-23T18:42:13+08:00")).toBe("2026-11-23T10:42:13.000Z");
    expect(iso("2026-11-23T18:42:13+0800")).toBe("2026-11-23T10:42:13.000Z");
    expect(iso("2026-11-23T18:42:13+08")).toBe("2026-11-23T10:42:13.000Z");
    expect(iso("2026-11-23T18:42:13-05:30")).toBe("2026-11-24T00:12:13.000Z");
    expect(iso("2026-11-23t18:42:13z")).toBe("2026-11-23T18:42:13.000Z");
  });

  test("Unix seconds and milliseconds, as numbers or strings", () => {
    expect(iso(1_700_000_000)).toBe("2023-11-14T22:13:20.000Z");
    expect(iso("1700000000.5")).toBe("2023-11-14T22:13:20.500Z");
    expect(iso(1_700_000_000_000)).toBe("2023-11-14T22:13:20.000Z");
  });

  test("dates that do not exist are refused, not rolled over", () => {
    for (const bad of [
      "2026-02-30",
      "2026-02-29T00:00:00Z",
      "2026-04-31",
      "2026-13-01",
      "2026-00-10",
      "2026-11-23T24:00:00",
      "2026-11-23T23:60:00",
      "2026-11-23T23:59:60",
      "2026-11-23T10:00:00+15:00",
      "2026-11-23T10:00:00+08:60",
    ]) {
      expect({ bad, parsed: iso(bad) }).toEqual({ bad, parsed: null });
    }
    expect(iso("2024-02-29")).toBe("2024-02-29T00:00:00.000Z");
    expect(iso("2000-02-29")).toBe("2000-02-29T00:00:00.000Z");
    expect(iso("1900-02-29")).toBeNull();
  });

  test("what is no timestamp is refused", () => {
    for (const bad of [
      "",
      "next tuesday",
      "23/11/2026",
      "2026-11-23T",
      "1e400",
      "99999999999999999999",
      "2026-11-23\u000018:00",
    ]) {
      expect({ bad, parsed: iso(bad) }).toEqual({ bad, parsed: null });
    }
    expect(iso(Number.NaN)).toBeNull();
    expect(iso(Number.POSITIVE_INFINITY)).toBeNull();
    expect(iso(1e300)).toBeNull();
  });

  test("every instant survives a round trip through its ISO text, with or without Z", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
        (date) => {
          const text = date.toISOString();
          return iso(text) === text && iso(text.slice(0, -1)) === text;
        },
      ),
    );
  });

  test("readTimestamp names the field in its 422", () => {
    try {
      readTimestamp("2026-02-30", ["body", "dueAt"]);
      throw new Error("accepted");
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).loc).toEqual(["body", "dueAt"]);
    }
  });
});
