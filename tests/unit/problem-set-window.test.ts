import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  assertInOrder,
  type OwnDates,
  parseWindow,
  type Window,
  type WindowField,
  windowFor,
  windowState,
} from "../../src/modules/problem-sets/problem-set-window";
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
    expect(located(() => parseWindow({ lockAt: unlockAt.toISOString() }, { unlockAt, dueAt }))).toEqual([
      "body",
      "lockAt",
    ]);
    expect(parseWindow({ dueAt: null }, { dueAt }).dueAt).toBeNull();
  });
});

/** Where an InputError points, or null when nothing was thrown. */
function located(run: () => unknown): (string | number)[] | null {
  try {
    run();
    return null;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return error.loc;
  }
}

// Instants within a few days, so that generated times often coincide or cross.
const instant = fc.integer({ min: 0, max: 5 * 86_400_000 }).map((ms) => new Date(Date.UTC(2031, 0, 1) + ms));
const maybe = fc.option(instant, { nil: null });
// A set's window in order: the times present, sorted into the slots they fill.
const orderedSet = fc.tuple(maybe, maybe, maybe).map((slots): Window => {
  const times = slots.filter((d) => d !== null).sort((x, y) => x.getTime() - y.getTime());
  const [unlockAt, dueAt, lockAt] = slots.map((d) => (d === null ? null : (times.shift() as Date)));
  return { unlockAt, dueAt, lockAt };
});
const own = fc.record({ dueAt: maybe, lockAt: maybe });
const RANK = { before: 0, open: 1, late: 2, locked: 3 } as const;
const givenOf = (dates: OwnDates): WindowField[] => (["dueAt", "lockAt"] as const).filter((k) => dates[k] !== null);
const sorted = (window: Window) => {
  const times = [window.unlockAt, window.dueAt, window.lockAt].filter((d) => d instanceof Date).map((d) => d.getTime());
  return times.every((ms, i) => i === 0 || times[i - 1] <= ms);
};

describe("a student's own window (windowFor), property-based", () => {
  test("the set's unlockAt always; each of dueAt and lockAt the student's where given, else the set's", () => {
    fc.assert(
      fc.property(orderedSet, fc.option(own, { nil: null }), (set, dates) => {
        const window = windowFor(set, dates);
        expect(window.unlockAt).toBe(set.unlockAt ?? null);
        expect(window.dueAt).toBe(dates?.dueAt ?? set.dueAt ?? null);
        expect(window.lockAt).toBe(dates?.lockAt ?? set.lockAt ?? null);
      }),
    );
  });

  test("the order check refuses exactly the windows out of order, and points at a time the request gave", () => {
    fc.assert(
      fc.property(orderedSet, own, (set, dates) => {
        const window = windowFor(set, dates);
        const loc = located(() => assertInOrder(window, givenOf(dates)));
        expect(loc === null).toBe(sorted(window));
        if (loc) expect(givenOf(dates)).toContain(loc[1] as WindowField);
      }),
    );
  });

  test("an extension that only postpones never refuses, nor marks late, what the set's own window would not", () => {
    const postponing = fc
      .tuple(orderedSet, fc.nat({ max: 86_400_000 }), fc.nat({ max: 86_400_000 }), instant)
      .map(([set, dueBy, lockBy, now]) => {
        const later = (date: Date | null | undefined, by: number) => (date ? new Date(date.getTime() + by) : null);
        return { set, dates: { dueAt: later(set.dueAt, dueBy), lockAt: later(set.lockAt, lockBy) }, now };
      });
    fc.assert(
      fc.property(postponing, ({ set, dates, now }) => {
        expect(RANK[windowState(windowFor(set, dates), now)]).toBeLessThanOrEqual(RANK[windowState(set, now)]);
      }),
    );
  });
});
