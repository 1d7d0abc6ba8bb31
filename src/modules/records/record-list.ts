import type { EntityManager } from "@mikro-orm/postgresql";
import { holds, type DomainAccess } from "../../auth/access";
import { pageWindow, parseOrdering, type ListPage } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import type { RecordState } from "./record-states";
import type { RecordListDetailView, RecordListQueryInput } from "./records.schemas";

/**
 * The records list, in one narrow query: only the columns the list shows, joined with the titles and
 * the username it names. Loading whole entities read every case's output (the `cases` JSON), each
 * problem's statement and each user's password hash for 100 rows to return 17 fields. Each filter has
 * an index under its domain; counts are exact up to EXACT_UP_TO and cached beyond.
 */
const COLUMNS = { createdAt: "r.created_at", updatedAt: "r.updated_at", id: "r.id" } as const;

interface Row {
  id: string; created_at: Date; updated_at: Date; domain_id: string; state: string; language: string;
  score: number; time_ms: number; memory_kb: number; judged_at: Date | null; late: boolean;
  problem_set_id: string | null; problem_set_title: string | null; problem_id: string | null; problem_title: string | null;
  committer_id: string | null; committer_username: string | null;
}

export async function listRecordPage(em: EntityManager, access: DomainAccess, query: RecordListQueryInput): Promise<ListPage<RecordListDetailView>> {
  const where = ["r.domain_id = ?"];
  const values: unknown[] = [access.domain.id];
  const filter = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    values.push(value.toLowerCase());
  };
  filter("r.problem_set_id", query.problemSet);
  filter("r.problem_id", query.problem);
  filter("r.committer_id", query.submitterId);
  // Without record.view one sees one's own records only.
  if (!holds(access, "record.view")) filter("r.committer_id", access.user.id);
  const order = Object.entries(parseOrdering(query.ordering)).map(([property, direction]) => `${COLUMNS[property as keyof typeof COLUMNS]} ${direction}`);
  const { offset, limit } = pageWindow(query);
  const condition = where.join(" and ");
  const [rows, count] = await Promise.all([
    em.execute<Row[]>(
      `select r.id, r.created_at, r.updated_at, r.domain_id, r.state, r.language, r.score, r.time_ms, r.memory_kb, r.judged_at, r.late,
              r.problem_set_id, ps.title as problem_set_title, r.problem_id, p.title as problem_title,
              r.committer_id, u.username as committer_username
         from records r
         left join problem_sets ps on ps.id = r.problem_set_id
         left join problems p on p.id = r.problem_id
         left join users u on u.id = r.committer_id
        where ${condition} order by ${order.join(", ")} limit ? offset ?`,
      [...values, limit, offset],
    ),
    countRecords(em, condition, values),
  ]);
  return { count, results: rows.map(toListDetail) };
}

// Up to this many rows a count is exact on every request (reading at most this many rows); beyond it,
// an exact count (0.7 s at a million rows) is computed at most every COUNT_TTL_MS per list and filter,
// per process, by one request: the others waiting at that moment share its answer.
const EXACT_UP_TO = 10_000;
const COUNT_TTL_MS = 30_000;
const COUNT_CACHE_SIZE = 1_000;
const counts = new Map<string, { count: number; at: number }>();
const counting = new Map<string, Promise<number>>();

async function countRecords(em: EntityManager, condition: string, values: unknown[]): Promise<number> {
  const [{ n }] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from records r where ${condition} limit ${EXACT_UP_TO + 1}) capped`, values,
  );
  if (n <= EXACT_UP_TO) return n;
  const key = `${condition}|${values.join("|")}`;
  const cached = counts.get(key);
  if (cached && Date.now() - cached.at < COUNT_TTL_MS) return cached.count;
  let pending = counting.get(key);
  if (!pending) {
    pending = em.execute<{ n: number }[]>(`select count(*)::int as n from records r where ${condition}`, values)
      .then(([{ n: exact }]) => {
        if (counts.size >= COUNT_CACHE_SIZE) counts.delete(counts.keys().next().value!);
        counts.set(key, { count: exact, at: Date.now() });
        return exact;
      })
      .finally(() => counting.delete(key));
    counting.set(key, pending);
  }
  return pending;
}

function toListDetail(row: Row): RecordListDetailView {
  return {
    createdAt: isoTime(new Date(row.created_at)), updatedAt: isoTime(new Date(row.updated_at)), id: row.id, domainId: row.domain_id,
    state: row.state as RecordState, language: row.language, score: row.score, timeMs: row.time_ms, memoryKb: row.memory_kb,
    judgedAt: isoTime(row.judged_at ? new Date(row.judged_at) : null), late: row.late,
    problemSetId: row.problem_set_id, problemSetTitle: row.problem_set_title, problemId: row.problem_id, problemTitle: row.problem_title,
    committerId: row.committer_id, committerUsername: row.committer_username,
  };
}
