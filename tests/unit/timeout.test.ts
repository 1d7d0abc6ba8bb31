import { describe, expect, test } from "bun:test";
import { withTimeout } from "../../src/core/timeout";

describe("withTimeout", () => {
  test("a prompt answer passes through; a silent one is refused with the message given", async () => {
    expect(await withTimeout(Promise.resolve("张伟"), 1_000)).toBe("张伟");
    const never = new Promise<string>(() => {});
    await expect(withTimeout(never, 5)).rejects.toThrow("timed out after 5 ms");
    await expect(withTimeout(never, 5, "Redis did not answer")).rejects.toThrow("Redis did not answer");
    await expect(withTimeout(Promise.reject(new Error("refused")), 1_000)).rejects.toThrow("refused");
  });
});
