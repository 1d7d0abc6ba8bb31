import type { StoredCase } from "../judging/record-states";
import type { RecordDetailView } from "./records.schemas";

/**
 * The record page's JSON is sent as written (respond.ts okJson): Elysia's check of the returned object
 * against RecordDetail (TypeBox's Clean, then Check) was a sixth of the page's CPU. So the view is made
 * here field by field, in the schema's order and with nothing else, down to each case and each earlier
 * judgement: whatever else a stored row or case holds stays out. tests/http/sql-written.test.ts checks
 * the pages against the schema with every object closed.
 */
export function recordDetailView(row: Omit<RecordDetailView, "codeUrl">, codeUrl: string | null): RecordDetailView {
  return {
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    id: row.id,
    domainId: row.domainId,
    state: row.state,
    language: row.language,
    score: row.score,
    timeMs: row.timeMs,
    memoryKb: row.memoryKb,
    judgedAt: row.judgedAt,
    late: row.late,
    commitId: row.commitId,
    taskId: row.taskId,
    cases: row.cases.map(caseView),
    problemSetId: row.problemSetId,
    problemId: row.problemId,
    problemConfigId: row.problemConfigId,
    committerId: row.committerId,
    judgerId: row.judgerId,
    attempts: row.attempts,
    codeUrl,
    history: row.history.map((h) => ({
      state: h.state,
      score: h.score,
      timeMs: h.timeMs,
      memoryKb: h.memoryKb,
      problemConfigId: h.problemConfigId,
      judgedAt: h.judgedAt,
      rejudgedAt: h.rejudgedAt,
      rejudgedBy: h.rejudgedBy,
    })),
    stages: row.stages.map((s) => ({
      name: s.name,
      kind: s.kind,
      state: s.state,
      deduction: s.deduction,
      forbidden: s.forbidden,
      message: s.message,
      comments: s.comments.map((c) => ({
        file: c.file,
        line: c.line,
        check: c.check,
        message: c.message,
        points: c.points,
      })),
    })),
  };
}

/** A stored case as shown; a field a stored case lacks gets the schema's default (RecordCase), not a hole. */
const caseView = (c: Partial<StoredCase>): StoredCase => ({
  state: c.state ?? "etc",
  score: c.score ?? 0,
  timeMs: c.timeMs ?? 0,
  memoryKb: c.memoryKb ?? 0,
  returnCode: c.returnCode ?? 0,
  stdout: c.stdout ?? "",
  stderr: c.stderr ?? "",
});
