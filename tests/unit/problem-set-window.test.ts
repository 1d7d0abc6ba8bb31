import { describe, expect, test } from "bun:test";
import { parseWindow, windowState } from "../../src/modules/problem-sets/problem-set-window";
import { InputError } from "../../src/core/errors";

const unlockAt = new Date("2031-03-01T00:00:00Z");
const dueAt = new Date("2031-03-08T00:00:00Z");
const lockAt = new Date("2031-03-09T00:00:00Z");
const at = (date: Date, deltaMs: number) => new Date(date.getTime() + deltaMs);

describe("problem set time windows, at their edges", () => {
  test.each([
    [at(unlockAt, -1), "before"],
    [unlockAt, "open"],
    [at(dueAt, -1), "open"],
    [dueAt, "late"],
    [at(lockAt, -1), "late"],
    [lockAt, "locked"],
  ])("%s is %s", (now, state) => {
    expect(windowState({ unlockAt, dueAt, lockAt }, now as Date) as string).toBe(state as string);
  });

  test("a set without times is always open; each bound works alone", () => {
    expect(windowState({}, new Date())).toBe("open");
    expect(windowState({ lockAt }, at(lockAt, 1))).toBe("locked");
    expect(windowState({ dueAt }, dueAt)).toBe("late");
  });

  test("times parse from ISO (any offset) or Unix seconds/milliseconds, and must come in order", () => {
    const parsed = parseWindow({
      unlockAt: "2031-03-01T08:00:00+08:00",
      dueAt: dueAt.getTime(),
      lockAt: lockAt.getTime() / 1000,
    });
    expect(parsed.unlockAt?.toISOString()).toBe(unlockAt.toISOString());
    expect(parsed.dueAt?.toISOString()).toBe(dueAt.toISOString());
    expect(parsed.lockAt?.toISOString()).toBe(lockAt.toISOString());
    expect(() => parseWindow({ unlockAt: lockAt.toISOString(), lockAt: unlockAt.toISOString() })).toThrow(InputError);
    expect(() => parseWindow({ dueAt: "tomorrow" })).toThrow(InputError);
    expect(parseWindow({ dueAt: null }, { dueAt }).dueAt).toBeNull();
  });
});
