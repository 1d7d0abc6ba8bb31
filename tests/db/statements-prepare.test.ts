import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { createTestDatabase } from "../helpers/database";
import { ROOT } from "../helpers/import-graph";

// Every hand-written statement of the server lives in a feature's `<feature>.sql.ts`, which lists all it
// can produce in SAMPLE_STATEMENTS (each builder called with arguments covering its variants). Each is
// prepared here against a database built from the real migrations: PostgreSQL parses, resolves and
// type-checks it without running it, so a statement naming a column or table the schema no longer has
// fails this test, not a request in production. Checked once by hand: with `r.time_ms` renamed to
// `r.time_msx` in records.sql.ts's DETAIL_SQL this test failed with
//   src/modules/records/records.sql.ts: column r.time_msx does not exist
//     select r.id, r.domain_id as "domainId", r.state, r.language, r.score, r.time_msx as "timeMs", …
// and passed again once the name was restored.

/** Statements moved out of the services into the `.sql.ts` files: the glob must find at least these. */
const MOVED_STATEMENTS = 36;

interface Sample {
  file: string;
  sql: string;
}

const files = (await Array.fromAsync(new Bun.Glob("src/**/*.sql.ts").scan({ cwd: ROOT }))).sort();
const samples: Sample[] = [];
const withoutSamples: string[] = [];
for (const file of files) {
  const module: { SAMPLE_STATEMENTS?: unknown } = await import(`${ROOT}/${file}`);
  const found = module.SAMPLE_STATEMENTS;
  if (!Array.isArray(found) || found.length === 0 || !found.every((s) => typeof s === "string" && s.trim() !== "")) {
    withoutSamples.push(file);
    continue;
  }
  for (const sql of new Set(found as string[])) samples.push({ file, sql });
}

/**
 * MikroORM's `?` placeholders as PostgreSQL's `$1, $2, …`, skipping quoted text ('…', "…"). None of our
 * SQL uses the jsonb operators `?`, `?|` or `?&`, which this could not tell from a placeholder: `?|`,
 * `?&` and `??` are refused outright, so one written by mistake fails here rather than being misread.
 */
function placeholders(sql: string): string {
  let out = "";
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated ${c} in: ${sql.slice(i, i + 80)}`);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === "?") {
      if (["|", "&", "?"].includes(sql[i + 1]))
        throw new Error(`a jsonb operator, not a placeholder: ${sql.slice(i, i + 40)}`);
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

let db: { url: string; drop: () => Promise<void> };
let sql: SQL;
beforeAll(async () => {
  db = await createTestDatabase();
  sql = new SQL(db.url, { max: 1 });
});
afterAll(async () => {
  await sql?.close();
  await db?.drop();
});

test("the glob finds the feature SQL files, each with its samples", () => {
  expect(files).toContain("src/modules/judging/record-transitions.sql.ts");
  expect(withoutSamples).toEqual([]);
  expect(samples.length).toBeGreaterThanOrEqual(MOVED_STATEMENTS);
});

test("the placeholders become numbered parameters, quoted text left alone", () => {
  expect(placeholders("select ?, '?', \"a?\" from t where x = ? and y = any(?::uuid[])")).toBe(
    "select $1, '?', \"a?\" from t where x = $2 and y = any($3::uuid[])",
  );
  expect(() => placeholders("select cases ?| array['a'] from records")).toThrow("jsonb operator");
});

test("every hand-written statement prepares against the migrated schema", async () => {
  const failures: string[] = [];
  for (const [i, { file, sql: text }] of samples.entries()) {
    const name = `stmt_${i}`;
    try {
      await sql.unsafe(`PREPARE ${name} AS ${placeholders(text)}`);
      await sql.unsafe(`DEALLOCATE ${name}`);
    } catch (error) {
      const head = text.replace(/\s+/g, " ").trim().slice(0, 200);
      failures.push(`${file}: ${(error as Error).message}\n    ${head}`);
    }
  }
  expect(failures).toEqual([]);
});
