import { describe, expect, test } from "bun:test";
import { RECORD_STATES, type RecordState } from "../../src/modules/judging/record-states";
import { mayMove, TRANSITIONS, type TransitionKind } from "../../src/modules/judging/record-transitions";
import * as sql from "../../src/modules/judging/record-transitions.sql";

// Every (kind, from, to) a record's state may take, enumerated: the table of record-transitions.ts,
// written out here by hand so that a change to who may move a record is a change to this test too.
const W = ["processing", "queueing", "retrying"] as const;
const K = ["fetched", "compiling", "running", "judging"] as const;
const F = ["accepted", "rejected", "failed"] as const;
const RANK: Record<RecordState, number> = {
  processing: 0,
  queueing: 0,
  retrying: 0,
  fetched: 1,
  compiling: 2,
  running: 3,
  judging: 4,
  accepted: 5,
  rejected: 5,
  failed: 5,
};
const EXPECTED: Record<TransitionKind, (from: RecordState, to: RecordState) => boolean> = {
  submit: () => false,
  claim: (from, to) => (W as readonly string[]).includes(from) && to === "fetched",
  report: (from, to) =>
    (K as readonly string[]).includes(from) &&
    [...K, ...F].includes(to as never) &&
    (to === from || RANK[to] > RANK[from]),
  release: (from, to) => (K as readonly string[]).includes(from) && to === "queueing",
  requeue: (from, to) => (K as readonly string[]).includes(from) && to === "queueing",
  exhaust: (from, to) => (K as readonly string[]).includes(from) && to === "failed",
  reenqueue: (from, to) => (W as readonly string[]).includes(from) && to === "queueing",
  rejudge: (_from, to) => to === "queueing",
};

describe("the record state machine", () => {
  test("every kind of move, from every state to every state, is allowed exactly as the table says", () => {
    const differences: string[] = [];
    for (const kind of Object.keys(TRANSITIONS) as TransitionKind[]) {
      for (const from of RECORD_STATES) {
        for (const to of RECORD_STATES) {
          if (mayMove(kind, from, to) !== EXPECTED[kind](from, to)) differences.push(`${kind}: ${from} -> ${to}`);
        }
      }
    }
    expect(differences).toEqual([]);
  });

  test("a judger never moves a record back, nor out of a final state; a submission starts queueing", () => {
    for (const from of F) for (const to of RECORD_STATES) expect(mayMove("report", from, to)).toBe(false);
    for (const to of W) expect(RECORD_STATES.some((from) => mayMove("report", from, to))).toBe(false);
    expect(TRANSITIONS.submit.to).toEqual(["queueing"]);
  });

  test("each statement's state list is the table's", () => {
    expect(sql.claimSql(TRANSITIONS.claim.from)).toContain("state in ('processing', 'queueing', 'retrying')");
    expect(sql.releaseSql(TRANSITIONS.release.from)).toContain(
      "state in ('fetched', 'compiling', 'running', 'judging')",
    );
    expect(sql.reportSql("running", TRANSITIONS.report.from, F)).toContain(
      "state in ('fetched', 'compiling', 'running')",
    );
    expect(sql.reportSql("processing", TRANSITIONS.report.from, F)).toBe("");
  });
});
