import { afterAll, beforeAll, expect, test } from "bun:test";
import { databaseAtMigration } from "../helpers/database";
import type { Orm } from "../../src/db/orm";

// The migration that moved identity keys from lower() to NFKC + case folding, run on an installation
// that has users with keys of the old kind, including two whose new keys would collide.
let orm: Orm;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ orm, drop } = await databaseAtMigration("Migration20261121222315_oauth_accounts"));
});
afterAll(() => drop());

test("old keys are recomputed; a key that would collide stays as it was; every account keeps its row", async () => {
  const conn = orm.em.getConnection();
  const users: [string, string][] = [
    ["Jose\u0301", "Jose\u0301@upc.edu"], // decomposed: lower() kept the combining accent apart
    ["ＰＥＴＥＲ", "peter@sjtu.edu.cn"], // full width
    ["Straße", "strasse@tum.de"],
    ["STRASSE", "STRASSE2@tum.de"], // its new key "strasse" is the one Straße's would take too
    ["张伟", "zhangwei@sjtu.edu.cn"],
  ];
  for (const [username, email] of users) {
    await conn.execute(
      `insert into users (id, username, username_lower, email, email_lower, role) values (gen_random_uuid(), ?, ?, ?, ?, 'user')`,
      [username, username.toLowerCase(), email, email.toLowerCase()],
    );
  }
  await orm.migrator.up();
  const rows = await conn.execute<{ username: string; username_lower: string; email_lower: string }[]>(
    "select username, username_lower, email_lower from users order by username",
  );
  const keyOf = Object.fromEntries(rows.map((r) => [r.username, r.username_lower]));
  expect(rows).toHaveLength(users.length);
  expect(keyOf["Jose\u0301"]).toBe("jos\u00e9");
  expect(keyOf.ＰＥＴＥＲ).toBe("peter");
  expect(keyOf.张伟).toBe("张伟");
  // "strasse" was STRASSE's old key already: it stays STRASSE's, and Straße keeps "straße".
  expect(keyOf.STRASSE).toBe("strasse");
  expect(keyOf.Straße).toBe("straße");
  expect(rows.find((r) => r.username === "Jose\u0301")?.email_lower).toBe("jos\u00e9@upc.edu");
  const [column] = await conn.execute<{ data_type: string }[]>(
    "select data_type from information_schema.columns where table_name = 'users' and column_name = 'username_lower'",
  );
  expect(column.data_type).toBe("text");
});
