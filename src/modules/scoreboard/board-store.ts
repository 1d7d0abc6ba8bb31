import { IsolationLevel, type EntityManager } from "@mikro-orm/postgresql";
import { resolveLanguages } from "../../core/config-model/config-json";
import type { BlobStore } from "../../storage/blob-store";
import { ProblemConfig } from "../problem-configs/problem-config.entity";
import { readConfigJson } from "../problem-configs/configs.service";
import type { BoardRecord } from "./board-rules";
import { BOARD_CHANGED_SQL, BOARD_ROWS_SQL, BOARD_STAMP_SQL } from "./scoreboard.sql";

/**
 * A set's records as the board reads them, kept per set in this process and brought up to date by what
 * changed since (docs/contests.md "Speed"): a request reads a stamp (how many records, the latest change, the
 * sum of their row versions), and only when it moved, the records changed since a little before the last read
 * (records written by a transaction that committed late still fall inside), merged by id. A count or a sum
 * that does not add up (a change missed: one committed later than that) reloads the set whole. IOI's subtask
 * structure comes from each record's config version, read once per version.
 */

interface Row {
  id: string;
  committer_id: string;
  username: string;
  problem_id: string;
  score: number;
  state: string;
  verdict: string | null;
  created_at: Date;
  config_id: string | null;
  language: string;
  case_scores: number[] | null;
  version: string;
}

interface Stamp {
  count: number;
  latest: Date | null;
  version: string;
}

interface Cached {
  count: number;
  latest: number;
  /** The stamp's sum of row versions; each record's, and their sum, which must add up to it. */
  version: string;
  versions: Map<string, bigint>;
  sum: bigint;
  withCases: boolean;
  byId: Map<string, BoardRecord>;
  /** The records as the board reads them, oldest first; a change makes only the changed ones again. */
  records: BoardRecord[];
}

/** Changes closer than this to the last read are read again: a transaction that commits late is not missed. */
const OVERLAP_MS = 5_000;
const MAX_SETS = 256;
const cache = new Map<string, Cached>();
const unitsCache = new Map<string, number[][] | null>();
const timeOf = (stamp: Stamp) => (stamp.latest ? new Date(stamp.latest).getTime() : 0);

/** A set's records, and a key that changes whenever they do (for boards made from them, scoreboard.service.ts). */
export async function boardRecords(
  em: EntityManager,
  store: BlobStore,
  setId: string,
  ioi: boolean,
): Promise<{ key: string; records: BoardRecord[] }> {
  const [stamp] = await em.execute<Stamp[]>(BOARD_STAMP_SQL, [setId]);
  let cached = cache.get(setId);
  if (cached && cached.withCases !== ioi) cached = undefined;
  if (!cached || cached.count !== stamp.count || cached.latest !== timeOf(stamp) || cached.version !== stamp.version) {
    // The changes since, with the stamp of their own snapshot; when they do not add up to it (a change
    // missed), or nothing is kept yet, the set whole, with its stamp in one snapshot.
    const merged = cached ? await merge(em, store, setId, cached) : null;
    cached =
      merged ??
      (await em.transactional(
        async (tx) => {
          const [now] = await tx.execute<Stamp[]>(BOARD_STAMP_SQL, [setId]);
          const read = await reload(tx, store, setId, ioi);
          return { ...read, count: now.count, latest: timeOf(now), version: now.version };
        },
        { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
      ));
    cache.delete(setId);
    cache.set(setId, cached);
    if (cache.size > MAX_SETS) cache.delete(cache.keys().next().value!);
  }
  return { key: `${cached.count}:${cached.latest}:${cached.version}:${ioi}`, records: cached.records };
}

/** The set whole. */
async function reload(em: EntityManager, store: BlobStore, setId: string, ioi: boolean): Promise<Cached> {
  const rows = await em.execute<Row[]>(BOARD_ROWS_SQL, [ioi, setId]);
  const byId = new Map((await recordsOf(em, store, rows, ioi)).map((r) => [r.id, r]));
  const versions = new Map(rows.map((row) => [row.id, BigInt(row.version)]));
  const sum = [...versions.values()].reduce((total, version) => total + version, 0n);
  return { count: 0, latest: 0, version: "", versions, sum, withCases: ioi, byId, records: sorted(byId) };
}

/**
 * What changed since a little before the last read, merged by id, with the stamp read beside it; null when the
 * count or the sum of row versions does not add up to that stamp (a change missed: the set is read whole).
 */
async function merge(em: EntityManager, store: BlobStore, setId: string, cached: Cached): Promise<Cached | null> {
  const since = new Date(cached.latest - OVERLAP_MS);
  type Changed = Partial<Row> & { stamp_count: number; stamp_latest: Date | null; stamp_version: string };
  const read = await em.execute<Changed[]>(BOARD_CHANGED_SQL, [setId, cached.withCases, setId, since]);
  const stamp: Stamp = { count: read[0].stamp_count, latest: read[0].stamp_latest, version: read[0].stamp_version };
  const changed = read.filter((row) => row.id) as Row[];
  const byId = new Map(cached.byId);
  const versions = new Map(cached.versions);
  let reorder = false;
  let sum = cached.sum;
  for (const row of changed) {
    sum -= versions.get(row.id) ?? 0n;
    versions.delete(row.id);
  }
  for (const row of changed.filter((r) => r.state === "failed")) reorder = byId.delete(row.id) || reorder;
  const kept = changed.filter((r) => r.state !== "failed");
  for (const row of kept) {
    sum += BigInt(row.version);
    versions.set(row.id, BigInt(row.version));
  }
  for (const record of await recordsOf(em, store, kept, cached.withCases)) {
    const before = byId.get(record.id);
    reorder ||= !before || before.createdAt.getTime() !== record.createdAt.getTime();
    byId.set(record.id, record);
  }
  if (byId.size !== stamp.count || sum.toString() !== stamp.version) return null;
  const records = reorder ? sorted(byId) : cached.records.map((r) => byId.get(r.id)!);
  return { ...cached, versions, sum, byId, records, count: stamp.count, latest: timeOf(stamp), version: stamp.version };
}

const sorted = (byId: Map<string, BoardRecord>) =>
  [...byId.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));

async function recordsOf(em: EntityManager, store: BlobStore, rows: Row[], ioi: boolean): Promise<BoardRecord[]> {
  const units = ioi ? await unitsOf(em, store, rows) : new Map<string, number[][] | null>();
  return rows.map((row) => ({
    id: row.id,
    userId: row.committer_id,
    username: row.username,
    problemId: row.problem_id,
    state: row.state,
    score: row.score,
    verdict: row.verdict,
    createdAt: new Date(row.created_at),
    units: ioi ? unitScores(row, units.get(`${row.config_id}:${row.language}`) ?? null) : null,
  }));
}

const groupedCases = new WeakMap<number[][], Set<number>>();

/** Each subtask's score in a record (the sum of its cases'), then the cases in no subtask together. */
function unitScores(row: Row, units: number[][] | null): number[] | null {
  if (!units || !row.case_scores) return null;
  const scores = row.case_scores;
  let grouped = groupedCases.get(units);
  if (!grouped) {
    grouped = new Set(units.flat());
    groupedCases.set(units, grouped);
  }
  const rest = scores.reduce((sum, s, i) => sum + (grouped.has(i) ? 0 : s), 0);
  const hasRest = scores.some((_, i) => !grouped.has(i));
  const parts = [
    ...units.map((unit) => unit.reduce((sum, i) => sum + (scores[i] ?? 0), 0)),
    ...(hasRest ? [rest] : []),
  ];
  return withinScore(parts, row.score);
}

/**
 * A record's subtask scores within its own score: its stages' deductions (a forbidden pattern: all of it) come
 * off its last subtasks first, so an IOI board never counts points the record lost (docs/config-reference.md
 * "Stages").
 */
export function withinScore(parts: number[], score: number): number[] {
  let excess = parts.reduce((sum, part) => sum + part, 0) - Math.max(0, score);
  const kept = [...parts];
  for (let i = kept.length - 1; i >= 0 && excess > 0; i--) {
    const cut = Math.min(kept[i], excess);
    kept[i] -= cut;
    excess -= cut;
  }
  return kept;
}

/** The subtasks (case indices) of each config version and language the rows were judged with. */
async function unitsOf(em: EntityManager, store: BlobStore, rows: Row[]) {
  for (const row of rows) {
    const key = `${row.config_id}:${row.language}`;
    if (unitsCache.has(key)) continue;
    unitsCache.set(key, null);
    if (!row.config_id) continue;
    try {
      const version = await em.findOne(ProblemConfig, row.config_id);
      if (!version) continue;
      for (const language of resolveLanguages(await readConfigJson(em, store, version)))
        unitsCache.set(
          `${row.config_id}:${language.name}`,
          language.subtasks.map((s) => s.cases),
        );
    } catch {
      // A version whose config cannot be read: its records count by their scores alone.
    }
    if (unitsCache.size > 4096) unitsCache.delete(unitsCache.keys().next().value!);
  }
  return unitsCache;
}
