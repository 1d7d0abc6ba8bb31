import { describe, expect, test } from "bun:test";
import { CaseBatches } from "../../src/judge/api/case-batches";
import { caseWithout } from "../../src/core/judge-protocol";

// The judge's batching of case reports, with a recording sender in place of the HTTP call.
const report = (text = "") => ({ ...caseWithout("accepted", ""), stdout: text });

function recorder(fail?: (batch: number[]) => Error | null) {
  const sent: number[][] = [];
  const send = async (cases: { index: number }[]) => {
    await Bun.sleep(1);
    const batch = cases.map((c) => c.index);
    const error = fail?.(batch);
    if (error) throw error;
    sent.push(batch);
  };
  return { sent, send };
}

describe("case reports in batches", () => {
  test("reports finishing within the delay go together, in order; a flush sends what is left", async () => {
    const { sent, send } = recorder();
    const batches = new CaseBatches(send, { delayMs: 30, maxChars: 1 << 20, maxCases: 100 });
    for (const i of [0, 1, 2]) batches.add(i, report());
    await Bun.sleep(60);
    batches.add(3, report());
    await batches.flush();
    expect(sent).toEqual([[0, 1, 2], [3]]);
  });

  test("a batch goes at once when it reaches its case count or its size", async () => {
    const { sent, send } = recorder();
    const batches = new CaseBatches(send, { delayMs: 10_000, maxChars: 100, maxCases: 2 });
    batches.add(0, report());
    batches.add(1, report());
    batches.add(2, report("x".repeat(150)));
    batches.add(3, report());
    await batches.flush();
    expect(sent).toEqual([[0, 1], [2], [3]]);
  });

  test("a refused batch is the record's failure: the next add throws it, and nothing after it is sent", async () => {
    const refused = new Error("the record is not claimed by you");
    const { sent, send } = recorder((batch) => (batch.includes(1) ? refused : null));
    const batches = new CaseBatches(send, { delayMs: 10_000, maxChars: 1 << 20, maxCases: 1 });
    batches.add(0, report());
    batches.add(1, report());
    await Bun.sleep(20);
    expect(() => batches.add(2, report())).toThrow(refused);
    await expect(batches.flush()).rejects.toThrow(refused);
    expect(sent).toEqual([[0]]);
  });

  test("a discarded record's pending reports are never sent", async () => {
    const { sent, send } = recorder();
    const batches = new CaseBatches(send, { delayMs: 20, maxChars: 1 << 20, maxCases: 100 });
    batches.add(0, report());
    batches.discard();
    await Bun.sleep(50);
    await batches.flush();
    expect(sent).toEqual([]);
  });
});
