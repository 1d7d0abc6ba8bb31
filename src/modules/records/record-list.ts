import type { EntityManager } from "@mikro-orm/postgresql";
import { holds, type DomainAccess } from "../../auth/access";
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
 * A list row as JSON, from `records r` with ROW_JOINS: the fields of RecordListDetail. A row made by a
 * sub-select, not json_build_object: that function looks up how to write each of its arguments on every
 * call: PostgreSQL took 2.0 ms to write a page of 100 rows with it, and takes 0.8 ms with a row.
 */
const ROW_JSON = `(select fields from (select ${isoSql("r.created_at")} as "createdAt", ${isoSql("r.updated_at")} as "updatedAt",
  r.id, r.domain_id as "domainId", r.state, r.language, r.score, r.time_ms as "timeMs", r.memory_kb as "memoryKb",
  ${isoSql("r.judged_at")} as "judgedAt", r.late, r.problem_set_id as "problemSetId", ps.title as "problemSetTitle",
  r.problem_id as "problemId", p.title as "problemTitle", r.committer_id as "committerId",
  u.username as "committerUsername") fields)`;
const ROW_JOINS = `left join problem_sets ps on ps.id = r.problem_set_id left join problems p on p.id = r.problem_id
  left join users u on u.id = r.committer_id`;

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
export async function listRowsOf(em: EntityManager, access: DomainAccess, filters: RecordListFilters, ids: string[]): Promise<RecordListDetailView[]> {
  const { where, values } = listCondition(access, filters);
  const [found] = await rows<{ results: RecordListDetailView[] }>(em,
    `select coalesce(json_agg(${ROW_JSON} order by r.updated_at, r.id), '[]') as results
       from records r ${ROW_JOINS} where r.id = any(?::uuid[]) and ${where.map((w) => `r.${w}`).join(" and ")}`,
    [uuidArray(ids), ...values]);
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

/** A page of the list and its count, as the JSON text of `{count, results}` (see okJson). */
export async function listRecordPage(em: EntityManager, access: DomainAccess, query: RecordListQueryInput): Promise<string> {
  const { where, values } = listCondition(access, query);
  const order = Object.entries(pageOrdering(query.ordering))
    .map(([property, direction]) => `${COLUMNS[property as keyof typeof COLUMNS]} ${direction}`);
  const { offset, limit } = pageWindow(query);
  const condition = where.join(" and ");
  const [page] = await rows<{ page: string }>(em,
    `with page as (select id from records where ${condition} order by ${order.join(", ")} limit ? offset ?)
     select json_build_object(
              'count', (select coalesce(sum(records), 0)::int from record_counts where ${condition}),
              'results', coalesce((select json_agg(${ROW_JSON} order by ${order.map((o) => `r.${o}`).join(", ")})
                from page join records r on r.id = page.id ${ROW_JOINS}), '[]'))::text as page`,
    [...values, limit, offset, ...values]);
  return page.page;
}
