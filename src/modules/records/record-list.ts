import type { EntityManager } from "@mikro-orm/postgresql";
import { holds, type DomainAccess } from "../identity/access";
import { pageWindow, parseOrdering } from "../../db/listing";
import { isoSql, rows } from "../../db/statements";
import { uuidArray } from "../../db/addressing";
import type { RecordListDetailView, RecordListQueryInput } from "./records.schemas";

/**
 * The records list in one prepared statement: the page (as JSON made by PostgreSQL) and its count.
 *
 * The page: which records are on it is decided on an index alone (its domain, filter, created_at and
 * id, index-only), so a deep `offset` skips index entries, not rows; then only those records are read,
 * with only the columns the list shows, joined with the titles and the username it names. Loading
 * whole entities read every case's output, each problem's statement and each user's password hash
 * for 100 rows to return 17 fields. PostgreSQL writes the timestamps as Horse does (isoSql).
 *
 * The count: a sum over `record_counts`, which triggers keep (see RecordCount): exact at any size, and
 * it reads a few rows where a count over the records read 0.7 s worth of them at a million.
 */
const COLUMNS = { createdAt: "created_at", updatedAt: "updated_at", id: "id" } as const;

/**
 * The list row of one record as JSON (the fields of RecordListDetail), or null; `id` is a column of the
 * enclosing query, which must not call its records `r`. A row made by a sub-select,
 * not json_build_object: that function looks up how to write each of its arguments on every call, and
 * PostgreSQL took 2.0 ms to write a page of 100 rows with it where it takes 0.8 ms with a row.
 */
const rowOf = (id: string) => `(select row_to_json(fields) from (select ${isoSql("r.created_at")} as "createdAt",
  ${isoSql("r.updated_at")} as "updatedAt", r.id, r.domain_id as "domainId", r.state, r.language, r.score,
  r.time_ms as "timeMs", r.memory_kb as "memoryKb", ${isoSql("r.judged_at")} as "judgedAt", r.late,
  r.problem_set_id as "problemSetId", ps.title as "problemSetTitle", r.problem_id as "problemId",
  p.title as "problemTitle", r.committer_id as "committerId", u.username as "committerUsername"
  from records r left join problem_sets ps on ps.id = r.problem_set_id left join problems p on p.id = r.problem_id
  left join users u on u.id = r.committer_id where r.id = ${id}) fields)`;

export type RecordListFilters = Pick<RecordListQueryInput, "problemSet" | "problem" | "submitterId">;

/** The list's WHERE: the domain, the filters given, and without record.view the caller's own records only. */
function listCondition(access: DomainAccess, query: RecordListFilters) {
  const where = ["domain_id = ?"];
  const values: unknown[] = [access.domainId];
  const filter = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    values.push(value.toLowerCase());
  };
  filter("problem_set_id", query.problemSet);
  filter("problem_id", query.problem);
  filter("committer_id", query.submitterId);
  if (!holds(access, "record.view")) filter("committer_id", access.userId);
  return { where, values };
}

/** The list rows of some records, as the list would show them to this caller with these filters (live updates). */
export async function listRowsOf(
  em: EntityManager,
  access: DomainAccess,
  filters: RecordListFilters,
  ids: string[],
): Promise<RecordListDetailView[]> {
  const { where, values } = listCondition(access, filters);
  const [found] = await rows<{ results: RecordListDetailView[] }>(
    em,
    `select coalesce(json_agg(${rowOf("changed.id")} order by changed.updated_at, changed.id), '[]') as results
       from records changed where changed.id = any(?::uuid[]) and ${where.map((w) => `changed.${w}`).join(" and ")}`,
    [uuidArray(ids), ...values],
  );
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

/**
 * The statement of a page and its count: one row per record of the page (its list row as JSON text),
 * each with the count; when the page is empty, one row with the count and no record.
 *
 * It is prepared once per connection and run with its generic plan (see mikro-orm.config.ts), planned
 * without the values, where a LIMIT parameter is guessed at a tenth of the table. So each record of the
 * page is read by a sub-plan run once per id, an index lookup each, where a join would have been
 * planned as a hash join over every record of the table. Each row is its own JSON text: one JSON text of
 * the whole page made PostgreSQL allocate and copy blocks of 64-256 KiB, fresh pages from the kernel on
 * every execution (page faults were a third of its time).
 */
export function recordPageStatement(
  access: DomainAccess,
  query: RecordListQueryInput,
): { sql: string; values: unknown[] } {
  const { where, values } = listCondition(access, query);
  const ordering = Object.entries(pageOrdering(query.ordering));
  const columns = ordering.map(([property]) => COLUMNS[property as keyof typeof COLUMNS]);
  const order = ordering.map(([, direction], i) => `${columns[i]} ${direction}`).join(", ");
  const { offset, limit } = pageWindow(query);
  const condition = where.join(" and ");
  return {
    sql: `with page as (select ${[...new Set(columns)].join(", ")} from records where ${condition} order by ${order} limit ? offset ?)
     select c.count, p.row from (select (select coalesce(sum(records), 0)::int from record_counts where ${condition}) as count) c
       left join lateral (select ${rowOf("page.id")}::text as row, page.* from page) p on true
      order by ${ordering.map(([, direction], i) => `p.${columns[i]} ${direction}`).join(", ")}`,
    values: [...values, limit, offset, ...values],
  };
}

/** A page of the list and its count, as the JSON text of `{count, results}` (see okJson). */
export async function listRecordPage(
  em: EntityManager,
  access: DomainAccess,
  query: RecordListQueryInput,
): Promise<string> {
  const { sql, values } = recordPageStatement(access, query);
  const found = await rows<{ count: number; row: string | null }>(em, sql, values);
  const results = found
    .filter((r) => r.row !== null)
    .map((r) => r.row)
    .join(",");
  return `{"count":${found[0].count},"results":[${results}]}`;
}
