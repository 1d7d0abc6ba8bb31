import type { EntityManager } from "@mikro-orm/postgresql";
import { sealed, sealedSets, sealedWithRecord } from "../problem-sets/oi-sealing";
import { BizError, permissionDenied } from "../../core/errors";
import { uuidArray } from "../../db/addressing";
import { readRow, row, rows } from "../../db/statements";
import { DETAIL_LATERAL, DETAIL_SQL, latestRecordsSql, RECORD_SQL } from "./records.sql";
import type { ResourceRow, StandingRead } from "../identity/identity.sql";
import { isoTime } from "../../http/schemas";
import type { DomainAccess } from "../identity/access";
import { holds } from "../identity/access-rules";
import type { BlobStore } from "../../storage/blob-store";
import { domainIdOf } from "../domains/domain-content";
import { JudgeRecord, RecordFile } from "./record.entity";
import { isFinal, isWorking, type RecordState, type StoredCase } from "../judging/record-states";
import { caseLayout, PUBLIC_CASE_CATEGORIES } from "../judging/protocol/case-layout";
import type { RecordDetailView, RecordView } from "./records.schemas";
import { recordDetailView } from "./record-detail-view";

const RELATIONS = ["problem", "problemSet", "committer"] as const;

/**
 * A record of the path's domain, by id: a record of another domain does not exist here. Its problem,
 * set and committer are loaded unless the caller needs only their ids (`populate: []`).
 */
export async function findRecord(
  em: EntityManager,
  domainId: string,
  id: string,
  populate: readonly (typeof RELATIONS)[number][] = RELATIONS,
): Promise<JudgeRecord> {
  const record =
    populate.length > 0
      ? await em.findOne(JudgeRecord, { id: id.toLowerCase(), domain: domainId }, { populate })
      : // Relations by id only: one prepared statement (a hot read: every record page polls it).
        await row<Record<string, unknown>>(em, RECORD_SQL, [id.toLowerCase(), domainId]).then(
          (found) => found && em.map(JudgeRecord, found),
        );
  if (!record) throw new BizError("RecordNotFoundError", "record not found");
  return record;
}

/** Who a record belongs to and who is judging it: what its visibility rules read. */
interface Parties {
  committerId: string | null;
  judgerId: string | null;
  state: string;
}

const partiesOf = (record: JudgeRecord): Parties => ({
  committerId: record.committer?.id ?? null,
  judgerId: record.judger?.id ?? null,
  state: record.state,
});

const isCommitter = (access: DomainAccess, record: Parties) => record.committerId === access.userId;

/** The caller holds the record now: it claimed it and is judging it. */
export const isWorkingJudger = (access: DomainAccess, record: JudgeRecord) => isJudging(access, partiesOf(record));
const isJudging = (access: DomainAccess, record: Parties) =>
  record.judgerId === access.userId && isWorking(record.state);

/** The submitted files: for their author, `record.code` holders, and the judger working on the record. */
const mayReadCode = (access: DomainAccess, record: Parties) =>
  isCommitter(access, record) || holds(access, "record.code") || isJudging(access, record);

/** One's own records are always readable; anyone else's need `record.view`. */
export async function findReadableRecord(em: EntityManager, access: DomainAccess, id: string): Promise<JudgeRecord> {
  const record = await findRecord(em, access.domainId, id, []);
  if (!isCommitter(access, partiesOf(record)) && !holds(access, "record.view"))
    throw permissionDenied("record", "view");
  return record;
}

export async function findCodeReadableRecord(
  em: EntityManager,
  access: DomainAccess,
  id: string,
): Promise<JudgeRecord> {
  const record = await findRecord(em, access.domainId, id);
  if (!mayReadCode(access, partiesOf(record))) throw permissionDenied("record", "code");
  return record;
}

/** The domain's records, newest first; without `record.view` only the caller's own. */
export async function filesOf(em: EntityManager, record: JudgeRecord) {
  const files = await em.find(RecordFile, { record }, { orderBy: { path: "asc" } });
  return files.map((f) => ({ path: f.path, digest: f.digest, size: Number(f.size) }));
}

export function toRecordView(record: JudgeRecord): RecordView {
  return {
    createdAt: isoTime(record.createdAt),
    updatedAt: isoTime(record.updatedAt),
    id: record.id,
    domainId: domainIdOf(record),
    state: record.state as RecordState,
    language: record.language,
    score: record.score,
    timeMs: record.timeMs,
    memoryKb: record.memoryKb,
    judgedAt: isoTime(record.judgedAt ?? null),
    late: record.late,
  };
}

/** A detail row (records.sql.ts, DETAIL_SQL): the view's fields and the seal columns of the record's set. */
type DetailRow = Omit<RecordDetailView, "codeUrl"> & Parameters<typeof sealedWithRecord>[1];

/**
 * The full record of the path's domain, in one prepared statement and with no entity (the page changes
 * nothing). Unless `anyone`, only its author or a holder of `record.view` may read it. Case output
 * (stdout/stderr) is shown where the pinned config marks the case public (category `sample` or
 * `pretest`) or to holders of `record.detail`; elsewhere it is blanked.
 */
export async function readRecordDetail(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  id: string,
  codeUrl: string,
  anyone = false,
): Promise<RecordDetailView> {
  const found = await readRow<DetailRow>(em, DETAIL_SQL, [id.toLowerCase(), access.domainId]);
  return recordDetailOf(em, store, access, found, codeUrl, anyone);
}

/** The record page's read with the standing (auth.plugin's domainRead): the record of the path's id. */
export const recordDetailRead = (params: Record<string, string>): StandingRead => ({
  lateral: DETAIL_LATERAL,
  values: [params.record.toLowerCase()],
});

/** readRecordDetail's rules on a detail row already read (null: no such record in the path's domain). */
export async function recordDetailOf(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  row: ResourceRow | null,
  codeUrl: string,
  anyone = false,
): Promise<RecordDetailView> {
  const found = row as DetailRow | null;
  if (!found?.id) throw new BizError("RecordNotFoundError", "record not found");
  if (!anyone && !isCommitter(access, found) && !holds(access, "record.view")) throw permissionDenied("record", "view");
  let cases = found.cases;
  if (!holds(access, "record.detail")) {
    const layout = await caseLayout(em, store, found.problemConfigId, found.language).catch(() => null);
    // A compile error's output is about the submitted code, not the test data: its author always sees it.
    const shown = (c: StoredCase, i: number) =>
      c.state === "compile_error" || (layout !== null && PUBLIC_CASE_CATEGORIES.has(layout.categories[i] ?? ""));
    cases = cases.map((c, i) => (shown(c, i) ? c : { ...c, stdout: "", stderr: "" }));
  }
  const view = recordDetailView({ ...found, cases }, mayReadCode(access, found) ? codeUrl : null);
  // An OI set's results before its end (oi-sealing.ts): nothing of the outcome, cases and rejudges included.
  if (!sealedWithRecord(access, found)) return view;
  return { ...sealed(view), cases: [], history: [], stages: [] };
}

export interface RecordPreviewView {
  id: string;
  state: string;
  createdAt: string;
}

/** The caller's newest record for each problem (records.sql.ts, latestRecordSql), in one statement. */
export async function latestRecords(
  em: EntityManager,
  userId: string,
  problemIds: string[],
  setId: string | null,
): Promise<Map<string, RecordPreviewView>> {
  if (problemIds.length === 0) return new Map();
  const found = await rows<{ problem_id: string; latest: RecordPreviewView | null }>(
    em,
    latestRecordsSql(setId !== null),
    [userId, ...(setId === null ? [] : [setId]), uuidArray(problemIds)],
  );
  return new Map(found.filter((r) => r.latest !== null).map((r) => [r.problem_id, r.latest!]));
}

/**
 * Adds `latestRecord` (the caller's newest record, or null) to problem views; through an OI set before its
 * end (oi-sealing.ts), a judged one reads `judging`.
 */
export async function withLatestRecords<T extends { id: string }>(
  em: EntityManager,
  userId: string,
  views: T[],
  setId: string | null = null,
  access: DomainAccess | null = null,
): Promise<(T & { latestRecord: RecordPreviewView | null })[]> {
  const latest = await latestRecords(
    em,
    userId,
    views.map((v) => v.id),
    setId,
  );
  const seal = setId !== null && access !== null && (await sealedSets(em, access, [setId])).size > 0;
  const shown = (preview: RecordPreviewView | undefined) =>
    !preview ? null : seal && isFinal(preview.state) ? { ...preview, state: "judging" } : preview;
  return views.map((view) => ({ ...view, latestRecord: shown(latest.get(view.id)) }));
}
