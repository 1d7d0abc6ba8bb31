import type { EntityManager } from "@mikro-orm/postgresql";
import { holds, type DomainAccess } from "../identity/access";
import { pageWindow, parseOrdering } from "../../db/listing";
import { readRows } from "../../db/statements";
import { uuidArray } from "../../db/addressing";
import type { RecordListDetailView, RecordListQueryInput } from "./records.schemas";
import { type ListFilter, type ListOrdering, listRowsSql, listWhere, recordPageSql } from "./records.sql";

/**
 * The records list in one prepared statement: the page (as JSON made by PostgreSQL) and its count
 * (records.sql.ts, recordPageSql, says how each is read).
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

/** The list rows of some records, as the list would show them to this caller with these filters (live updates). */
export async function listRowsOf(
  em: EntityManager,
  access: DomainAccess,
  filters: RecordListFilters,
  ids: string[],
): Promise<RecordListDetailView[]> {
  const { where, values } = listCondition(access, filters);
  const [found] = await readRows<{ results: RecordListDetailView[] }>(em, listRowsSql(where), [
    uuidArray(ids),
    ...values,
  ]);
  return found.results;
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
): { sql: string; values: unknown[] } {
  const { where, values } = listCondition(access, query);
  const ordering = Object.entries(pageOrdering(query.ordering)) as ListOrdering;
  const { offset, limit } = pageWindow(query);
  return { sql: recordPageSql(where, ordering), values: [...values, limit, offset, ...values] };
}

/** A page of the list and its count, as the JSON text of `{count, results}` (see okJson). */
export async function listRecordPage(
  em: EntityManager,
  access: DomainAccess,
  query: RecordListQueryInput,
): Promise<string> {
  const { sql, values } = recordPageStatement(access, query);
  const found = await readRows<{ count: number; row: string | null }>(em, sql, values);
  const results = found
    .filter((r) => r.row !== null)
    .map((r) => r.row)
    .join(",");
  return `{"count":${found[0].count},"results":[${results}]}`;
}
