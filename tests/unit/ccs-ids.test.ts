import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import * as ids from "../../src/modules/ccs/ccs-ids";
import { CCS_ID } from "../../src/modules/ccs/ccs.schemas";

// The Contest API's ids for our records (ccs-ids.ts): within the spec's 36 characters, read back to the record.
describe("Contest API ids", () => {
  test("a record's judgements and runs: valid ids that name it again, whatever the UUID", () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 1, max: 9999 }),
        (uuid, n, ordinal) => {
          const judgement = ids.judgementId(uuid, n);
          const run = ids.runId(uuid, n, ordinal);
          for (const id of [judgement, run]) expect(id).toMatch(new RegExp(CCS_ID));
          expect(ids.parseJudgementId(judgement)).toEqual({ recordId: uuid.toLowerCase(), n, ordinal: null });
          expect(ids.parseJudgementId(run)).toEqual({ recordId: uuid.toLowerCase(), n, ordinal });
        },
      ),
    );
    expect(ids.expandUuid(ids.compactUuid("ffffffff-ffff-ffff-ffff-ffffffffffff"))).toBe(
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
    );
    expect(ids.expandUuid("zzzzzzzzzzzzzzzzzzzzzzzzz")).toBeNull();
    expect(ids.parseJudgementId(`${randomUUID()}-0`)).toBeNull();
  });

  test("labels as contests letter problems, language ids within the id's characters", () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(ids.problemLabel)).toEqual([
      "A",
      "B",
      "Z",
      "AA",
      "AB",
      "AZ",
      "BA",
      "ZZ",
      "AAA",
    ]);
    expect(["c++", "C#", "python3", "Go 1.22"].map(ids.languageId)).toEqual(["cpp", "c_", "python3", "go_1.22"]);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 256 }), (name) =>
        expect(ids.languageId(name)).toMatch(new RegExp(CCS_ID)),
      ),
    );
  });

  test("verdicts: accepted AC, a judge failure JE, else the first case that failed (WA when none says)", () => {
    expect(ids.recordType("accepted", null)).toBe("AC");
    expect(ids.recordType("failed", "system_error")).toBe("JE");
    expect(ids.recordType("rejected", "time_limit_exceeded")).toBe("TLE");
    expect(ids.recordType("rejected", "compile_error")).toBe("CE");
    expect(ids.recordType("rejected", null)).toBe("WA");
    expect(ids.recordType("rejected", "canceled")).toBe("WA");
    expect(ids.recordType("running", null)).toBeNull();
  });
});
