import { expect, test } from "bun:test";
import { BoundedMap } from "../../src/runtime/bounded-map";

test("a bounded map forgets its oldest entry when a new key would pass the limit, never on an update", () => {
  const map = new BoundedMap<string, number>(3);
  for (const [key, value] of [
    ["张伟", 1],
    ["José", 2],
    ["Peter", 3],
  ] as const)
    map.set(key, value);
  map.set("José", 20);
  expect([...map.entries()]).toEqual([
    ["张伟", 1],
    ["José", 20],
    ["Peter", 3],
  ]);
  map.set("Chloé", 4);
  expect([...map.keys()]).toEqual(["José", "Peter", "Chloé"]);
  for (let i = 0; i < 10_000; i++) map.set(`user-${i}`, i);
  expect(map.size).toBe(3);
  expect([...map.keys()]).toEqual(["user-9997", "user-9998", "user-9999"]);
});
