import { describe, expect, test } from "bun:test";
import { FairGate, GateBusy } from "../../src/runtime/fair-gate";

/** Work that ends when the test says so, recording the order it started in. */
function controlled(started: string[]) {
  const ends = new Map<string, () => void>();
  const work = (name: string) => () =>
    new Promise<void>((resolve) => {
      started.push(name);
      ends.set(name, resolve);
    });
  const end = async (name: string) => {
    ends.get(name)!();
    await Bun.sleep(0);
  };
  return { work, end };
}

describe("FairGate", () => {
  test("runs at most `slots` at once; the rest wait", async () => {
    const started: string[] = [];
    const { work, end } = controlled(started);
    const gate = new FairGate(2, 60_000);
    const runs = ["a1", "a2", "a3"].map((name) => gate.run("a", "x", work(name)));
    await Bun.sleep(0);
    expect(started).toEqual(["a1", "a2"]);
    expect(gate.waiting).toBe(1);
    await end("a1");
    expect(started).toEqual(["a1", "a2", "a3"]);
    await end("a2");
    await end("a3");
    await Promise.all(runs);
  });

  test("lines are served in turn: a flood of one client waits behind itself, not in front of others", async () => {
    const started: string[] = [];
    const { work, end } = controlled(started);
    const gate = new FairGate(1, 60_000);
    const runs = [
      ...["f1", "f2", "f3", "f4", "f5"].map((name) => gate.run("flooder", "x", work(name))),
      gate.run("other", "x", work("o1")),
      gate.run("third", "x", work("t1")),
    ];
    await Bun.sleep(0);
    for (const name of ["f1", "f2", "o1", "t1", "f3", "f4", "f5"]) await end(name);
    await Promise.all(runs);
    expect(started).toEqual(["f1", "f2", "o1", "t1", "f3", "f4", "f5"]);
  });

  test("inside a group its members take turns: an account flooded from one address, its owner from another", async () => {
    const started: string[] = [];
    const { work, end } = controlled(started);
    const gate = new FairGate(1, 60_000);
    const runs = [
      ...["g1", "g2", "g3", "g4"].map((name) => gate.run("victim", "attacker", work(name))),
      gate.run("victim", "owner", work("owner")),
      gate.run("someone", "elsewhere", work("s1")),
    ];
    await Bun.sleep(0);
    for (const name of ["g1", "g2", "s1", "owner", "g3", "g4"]) await end(name);
    await Promise.all(runs);
    // g1 runs; then the groups in turn (victim, someone, victim...), and inside victim attacker and owner in turn.
    expect(started).toEqual(["g1", "g2", "s1", "owner", "g3", "g4"]);
  });

  test("a request whose estimated wait passes the bound is refused at once, with that wait; others still queue", async () => {
    const started: string[] = [];
    const { work, end } = controlled(started);
    const gate = new FairGate(1, 1_000, 400);
    const runs = [
      gate.run("flooder", "x", work("f1")),
      gate.run("flooder", "x", work("f2")),
      gate.run("flooder", "x", work("f3")),
    ];
    // f1 runs; f2 waits 400 ms, f3 800 ms; a fourth would wait 1,200 ms.
    await expect(gate.run("flooder", "x", work("f4"))).rejects.toBeInstanceOf(GateBusy);
    await expect(gate.run("flooder", "x", work("f4"))).rejects.toMatchObject({ retryAfterSeconds: 2 });
    // Another client's first request waits behind f1 and the flood's next one only: within the bound.
    const other = gate.run("other", "x", work("o1"));
    for (const name of ["f1", "f2", "o1", "f3"]) await end(name);
    await Promise.all([...runs, other]);
    expect(started).toEqual(["f1", "f2", "o1", "f3"]);
  });
});
