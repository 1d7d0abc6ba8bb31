import type { OrderDirection } from "../../db/listing";
import { isoSql } from "../../db/statements";
import { standingSamples } from "../identity/identity.sql";

/**
 * The records' hand-written SQL: a record by id, its detail, the caller's newest records, and the list
 * (record-list.ts). The code that runs each statement imports its text from here;
 * tests/db/statements-prepare.test.ts prepares every one of SAMPLE_STATEMENTS against the migrated schema.
 */

/** A record of a domain, whole, for the ORM to map. Parameters: record id, domain id. */
export const RECORD_SQL = "select * from records where id = ? and domain_id = ?";

/**
 * The detail view's fields, written by PostgreSQL (timestamps as Horse writes them), and what OI sealing
 * reads of the record's set (oi-sealing.ts, SetSeal: its rule, end, whether its results are published).
 * Parameters: the record's id, then the domain's unless `domain` names it.
 */
const detailSql = (domain: string) => `select r.id, r.domain_id as "domainId", r.state, r.language, r.score,
    r.time_ms as "timeMs", r.memory_kb as "memoryKb", ${isoSql("r.created_at")} as "createdAt",
    ${isoSql("r.updated_at")} as "updatedAt", ${isoSql("r.judged_at")} as "judgedAt", r.late,
    r.commit_id as "commitId", r.task_id as "taskId", r.cases, r.problem_set_id as "problemSetId",
    r.problem_id as "problemId", r.config_id as "problemConfigId", r.committer_id as "committerId",
    r.judger_id as "judgerId", r.attempts, r.history, r.stages, ps.scoreboard_rule as "sealRule",
    coalesce(ps.lock_at, ps.due_at) as "sealEnd", ps.unfrozen_at is not null as "sealUnfrozen"
  from records r left join problem_sets ps on ps.id = r.problem_set_id where r.id = ? and r.domain_id = ${domain}`;
export const DETAIL_SQL = detailSql("?");

/** The record page's read with the caller's standing (identity.sql.ts): the record of the path's domain. */
export const DETAIL_LATERAL = detailSql("d.id");

/**
 * The caller's newest record for a problem (`problemColumn`), through the problem's own route or
 * through one set, as a RecordPreview JSON value or null: one index lookup (records_latest_index), read
 * straight from the records, so it is never stale. Its placeholders: the committer (unless `committer` names
 * its column), then the set.
 */
export const latestRecordSql = (problemColumn: string, throughSet: boolean, committer = "?") =>
  `(select json_build_object('id', r.id, 'state', r.state, 'createdAt', ${isoSql("r.created_at")}) from records r
     where r.committer_id = ${committer} and r.problem_id = ${problemColumn} and ${
       throughSet ? "r.problem_set_id = ?" : "r.problem_set_id is null"
     }
     order by r.created_at desc, r.id desc limit 1)`;

/** The caller's newest record for each problem of an array (see latestRecordSql); the array comes last. */
export const latestRecordsSql = (throughSet: boolean) =>
  `select p.id as problem_id, ${latestRecordSql("p.id", throughSet)} as latest from unnest(?::uuid[]) as p(id)`;

// The list.
//
// The page: which records are on it is decided on an index alone (its domain, filter, created_at and
// id, index-only), so a deep `offset` skips index entries, not rows; then only those records are read,
// with only the columns the list shows, joined with the titles and the username it names. Loading
// whole entities read every case's output, each problem's statement and each user's password hash
// for 100 rows to return 17 fields. The rows come back as columns and the app writes the JSON
// (record-list.ts): PostgreSQL writing each row as JSON (row_to_json, to_char for Horse's timestamps)
// spent 350 µs of a page's 670, where the app writes the same text in 110 µs.
//
// The count: a sum over `record_counts`, which triggers keep (see RecordCount): exact at any size, and
// it reads a few rows where a count over the records read 0.7 s worth of them at a million.

/** The list's order fields and their columns. */
export const LIST_ORDER_COLUMNS = { createdAt: "created_at", updatedAt: "updated_at", id: "id" } as const;
export type ListOrdering = [property: keyof typeof LIST_ORDER_COLUMNS, direction: OrderDirection][];

/** The list's filters and their columns; each filter given is one placeholder after the domain's. */
export const LIST_FILTER_COLUMNS = {
  problemSet: "problem_set_id",
  problem: "problem_id",
  committer: "committer_id",
} as const;
export type ListFilter = keyof typeof LIST_FILTER_COLUMNS;

/** The list's WHERE conditions: the domain, then one per filter given, in order (a filter may repeat). */
export const listWhere = (filters: readonly ListFilter[]) => [
  "domain_id = ?",
  ...filters.map((filter) => `${LIST_FILTER_COLUMNS[filter]} = ?`),
];

/** The columns of a list row (a ListRow), from `records r` and the joins of LIST_JOINS. */
const LIST_COLUMNS = `r.created_at as "createdAt", r.updated_at as "updatedAt", r.id, r.domain_id as "domainId",
  r.state, r.language, r.score, r.time_ms as "timeMs", r.memory_kb as "memoryKb", r.judged_at as "judgedAt", r.late,
  r.problem_set_id as "problemSetId", ps.title as "problemSetTitle", r.problem_id as "problemId",
  p.title as "problemTitle", r.committer_id as "committerId", u.username as "committerUsername"`;
const LIST_JOINS = `left join problem_sets ps on ps.id = r.problem_set_id left join problems p on p.id = r.problem_id
  left join users u on u.id = r.committer_id`;

/**
 * The list rows of some records that meet the list's conditions (`where`, from listWhere), oldest change
 * first. Parameters: the ids as an array, then the conditions'.
 */
export const listRowsSql = (where: readonly string[]) =>
  `select ${LIST_COLUMNS} from records r ${LIST_JOINS}
    where r.id = any(?::uuid[]) and ${where.map((w) => `r.${w}`).join(" and ")} order by r.updated_at, r.id`;

/**
 * The statement of a page and its count: one row per record of the page (its list row's columns), each
 * with the count; none when the page is empty (recordCountSql then counts). Parameters: the conditions'
 * (`where`, from listWhere), limit, offset, the conditions' again.
 *
 * It is prepared once per connection and run with its generic plan (see mikro-orm.config.ts), planned
 * without the values, where a LIMIT parameter is guessed at a tenth of the table: a join of the page
 * with the records was planned as a hash join over every record of the table (1.4 ms a page at 10k).
 * So each record of the page is read by a lateral sub-select with a LIMIT, which PostgreSQL does not
 * merge into the join: one index lookup per id of the page. The rows are ordered by the page's own
 * columns, which its LIMIT hands on in order through the nested loops: no sort of the page's rows, where
 * an order by the joined row's columns sorted them again (PostgreSQL's CPU 424 → 407 µs a list request at 10k).
 */
export function recordPageSql(where: readonly string[], ordering: ListOrdering): string {
  const columns = ordering.map(([property]) => LIST_ORDER_COLUMNS[property]);
  const order = (table: string) => ordering.map(([, direction], i) => `${table}${columns[i]} ${direction}`).join(", ");
  const condition = where.join(" and ");
  const pageColumns = [...new Set(columns)];
  return `with page as (select ${pageColumns.join(", ")} from records where ${condition} order by ${order("")}
       limit ? offset ?)
     select (${recordCountSql(where)}) as count, ${LIST_COLUMNS}
       from page cross join lateral (select * from records where records.id = page.id limit 1) r
            ${LIST_JOINS}
      order by ${order("page.")}`;
}

/** The count of the list's records (record_counts: "The count" above says why). Parameters: the conditions'. */
export const recordCountSql = (where: readonly string[]) =>
  `select coalesce(sum(records), 0)::int as count from record_counts where ${where.join(" and ")}`;

/** The list's variants: no filter, each filter, all of them, and one's own records under a committer filter. */
const SAMPLE_FILTERS: ListFilter[][] = [
  [],
  ["problemSet"],
  ["problem"],
  ["committer"],
  ["problemSet", "problem", "committer", "committer"],
];
const SAMPLE_ORDERINGS: ListOrdering[] = [
  [
    ["createdAt", "desc"],
    ["id", "desc"],
  ],
  [
    ["createdAt", "asc"],
    ["id", "asc"],
  ],
  [
    ["updatedAt", "desc"],
    ["createdAt", "asc"],
    ["id", "asc"],
  ],
];

/** Every statement this file can produce, for the prepare test. */
export const SAMPLE_STATEMENTS: string[] = [
  RECORD_SQL,
  DETAIL_SQL,
  ...standingSamples(DETAIL_LATERAL),
  latestRecordsSql(false),
  latestRecordsSql(true),
  ...SAMPLE_FILTERS.map((filters) => listRowsSql(listWhere(filters))),
  ...SAMPLE_FILTERS.flatMap((filters) =>
    SAMPLE_ORDERINGS.map((ordering) => recordPageSql(listWhere(filters), ordering)),
  ),
  ...SAMPLE_FILTERS.map((filters) => recordCountSql(listWhere(filters))),
];
