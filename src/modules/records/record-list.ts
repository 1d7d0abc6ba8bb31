import type { EntityManager } from "@mikro-orm/postgresql";
import type { DomainAccess } from "../identity/access";
import { holds } from "../identity/access-rules";
import { pageWindow, parseOrdering } from "../../db/listing";
import { readRows } from "../../db/statements";
import { isoTime } from "../../http/schemas";
import { uuidArray } from "../../db/addressing";
import { sealed, sealedSets } from "../problem-sets/oi-sealing";
import type { RecordListDetailView, RecordListQueryInput } from "./records.schemas";
import {
  type ListFilter,
  type ListOrdering,
  listRowsSql,
  listWhere,
  recordCountSql,
  recordPageSql,
} from "./records.sql";

/**
 * The records list in one prepared statement: the page and its count (records.sql.ts, recordPageSql,
 * says how each is read).
 */

export type RecordListFilters = Pick<RecordListQueryInput, "problemSet" | "problem" | "submitterId">;

/** The list's WHERE: the domain, the filters given, and without record.view the caller's own records only. */
function listCondition(access: DomainAccess, query: RecordListFilters) {
  const filters: ListFilter[] = [];
  const values: unknown[] = [access.domainId];
  const filter = (name: ListFilter, value: string | undefined) => {
    if (value === undefined) return;
    filters.push(name);
    values.push(value.toLowerCase());
  };
  filter("problemSet", query.problemSet);
  filter("problem", query.problem);
  filter("committer", query.submitterId);
  if (!holds(access, "record.view")) filter("committer", access.userId);
  return { where: listWhere(filters), values };
}

/** A list row as read (records.sql.ts, LIST_COLUMNS): timestamps as Bun.sql's Dates, or as text in a transaction. */
type ListRow = Omit<RecordListDetailView, "createdAt" | "updatedAt" | "judgedAt"> &
  Record<"createdAt" | "updatedAt" | "judgedAt", Date | string | null>;

const timeOf = (value: Date | string | null) =>
  value === null ? null : isoTime(value instanceof Date ? value : new Date(value));

/** The view of a list row, its fields in the schema's order. */
const listView = (r: ListRow): RecordListDetailView => ({
  createdAt: timeOf(r.createdAt)!,
  updatedAt: timeOf(r.updatedAt)!,
  id: r.id,
  domainId: r.domainId,
  state: r.state,
  language: r.language,
  score: r.score,
  timeMs: r.timeMs,
  memoryKb: r.memoryKb,
  judgedAt: timeOf(r.judgedAt),
  late: r.late,
  problemSetId: r.problemSetId,
  problemSetTitle: r.problemSetTitle,
  problemId: r.problemId,
  problemTitle: r.problemTitle,
  committerId: r.committerId,
  committerUsername: r.committerUsername,
});

/** The list rows of some records, as the list would show them to this caller with these filters (live updates). */
export async function listRowsOf(
  em: EntityManager,
  access: DomainAccess,
  filters: RecordListFilters,
  ids: string[],
): Promise<RecordListDetailView[]> {
  const { where, values } = listCondition(access, filters);
  return sealRows(
    em,
    access,
    (await readRows<ListRow>(em, listRowsSql(where), [uuidArray(ids), ...values])).map(listView),
  );
}

/** Rows of OI sets before their end, their outcome taken out (oi-sealing.ts). */
async function sealRows(em: EntityManager, access: DomainAccess, rows: RecordListDetailView[]) {
  const seals = await sealedSets(
    em,
    access,
    rows.map((r) => r.problemSetId),
  );
  return seals.size === 0 ? rows : rows.map((r) => (r.problemSetId && seals.has(r.problemSetId) ? sealed(r) : r));
}

/**
 * The list's order: Horse's `ordering`, the id breaking ties in the direction of the field before it.
 * Newest first is then one backward scan of an index `(…, created_at, id)` with no sort step, which
 * the prepared statement's generic plan (limit and offset unknown to it) cannot get wrong: with the id
 * ascending under a descending time, it sorted a filter's whole match at a million records.
 */
function pageOrdering(ordering: string | undefined) {
  const order = parseOrdering(ordering);
  const fields = Object.keys(order).filter((field) => field !== "id");
  return { ...order, id: order[fields[fields.length - 1]] };
}

/** The statement of a page and its count (records.sql.ts, recordPageSql) and its values. */
export function recordPageStatement(
  access: DomainAccess,
  query: RecordListQueryInput,
): { sql: string; values: unknown[]; count: { sql: string; values: unknown[] } } {
  const { where, values } = listCondition(access, query);
  const ordering = Object.entries(pageOrdering(query.ordering)) as ListOrdering;
  const { offset, limit } = pageWindow(query);
  return {
    sql: recordPageSql(where, ordering),
    values: [...values, limit, offset, ...values],
    count: { sql: recordCountSql(where), values },
  };
}

/** A page of the list and its count, `{count, results}`, for okValue (respond.ts; no schema check, as okJson). */
export async function listRecordPage(
  em: EntityManager,
  access: DomainAccess,
  query: RecordListQueryInput,
): Promise<{ count: number; results: RecordListDetailView[] }> {
  const { sql, values, count } = recordPageStatement(access, query);
  const found = await readRows<ListRow & { count: number }>(em, sql, values);
  // An empty page has no row to carry the count (past the end, or no record at all): counted apart.
  if (found.length === 0)
    return { count: (await readRows<{ count: number }>(em, count.sql, count.values))[0].count, results: [] };
  const results = await sealRows(em, access, found.map(listView));
  return { count: found[0].count, results };
}
