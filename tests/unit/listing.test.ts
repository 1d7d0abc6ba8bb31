import { describe, expect, test } from "bun:test";
import { parseOrdering } from "../../src/db/listing";
import { BizError } from "../../src/core/errors";

describe("parseOrdering", () => {
  test("no ordering means newest first, ties broken by id so paging is stable", () => {
    expect(parseOrdering(undefined)).toEqual({ createdAt: "desc", id: "asc" });
    expect(parseOrdering("")).toEqual({ createdAt: "desc", id: "asc" });
  });

  test("comma-separated snake_case fields with a '-' prefix for descending", () => {
    expect(parseOrdering("-updated_at,created_at")).toEqual({ updatedAt: "desc", createdAt: "asc", id: "asc" });
  });

  test("empty tokens are ignored, like Horse", () => {
    expect(parseOrdering("created_at,")).toEqual({ createdAt: "asc", id: "asc" });
  });

  test("an unknown field is IllegalFieldError naming the token", () => {
    const attempt = () => parseOrdering("-password");
    expect(attempt).toThrow(BizError);
    expect(attempt).toThrow("-password is not available in ordering fields");
  });

  test("camelCase or prototype names are not fields", () => {
    expect(() => parseOrdering("createdAt")).toThrow(BizError);
    expect(() => parseOrdering("constructor")).toThrow(BizError);
  });
});
