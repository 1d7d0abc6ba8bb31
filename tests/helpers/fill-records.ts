import type { SQL } from "bun";

/** Where filled records go: a domain, one of its problem sets, a problem, and the students who submit. */
export interface Population {
  domain: string;
  set: string;
  problem: string;
  students: string[];
}

/**
 * Grows the records table to `total` rows made by SQL (generate_series), spread over the students, a
 * quarter of them in the set, each with five cases of realistic wrong-answer output.
 */
export async function fillRecords(
  sql: SQL,
  { domain, set, problem, students }: Population,
  total: number,
): Promise<void> {
  const [{ n }] = await sql`select count(*)::int as n from records`;
  if (n >= total) return;
  const cases = JSON.stringify(
    Array.from({ length: 5 }, (_, i) => ({
      state: i % 3 ? "accepted" : "wrong_answer",
      score: 20,
      timeMs: 13,
      memoryKb: 2048,
      returnCode: 0,
      stdout: `expected 42 but the program printed 41 on line ${i}\n`.repeat(4),
      stderr: "",
    })),
  );
  const ids = `{${students.join(",")}}`;
  for (let done = n; done < total; done += 100_000) {
    const batch = Math.min(100_000, total - done);
    // `::text::jsonb`: Bun.sql sends a string for a jsonb parameter as a JSON string, not as JSON text.
    await sql.unsafe(
      `insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, committer_id, state, language, score, time_ms, memory_kb, judged_at, cases)
       select gen_random_uuid(), now() - make_interval(secs => g), now() - make_interval(secs => g), $1, case when g % 4 = 0 then $2::uuid end, $3,
              ($4::uuid[])[1 + g % ${students.length}], 'accepted', 'c', 100, 13, 2048, now(), $5::text::jsonb
         from generate_series(1, ${batch}) as g`,
      [domain, set, problem, ids, cases],
    );
  }
  // What autovacuum does on a live database: statistics, and the visibility map for index-only scans.
  await sql`vacuum analyze records`;
  // The fill dirtied about a gigabyte of pages at a million records; written out now, not by the
  // checkpointer in the middle of the measurements (it slowed a random route of each run 2-3x).
  await sql`checkpoint`;
}
