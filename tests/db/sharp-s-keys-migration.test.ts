import { afterAll, beforeAll, expect, test } from "bun:test";
import { databaseAtMigration } from "../helpers/database";
import type { Orm } from "../../src/db/orm";
import { identityKey } from "../../src/modules/identity/credentials/names";

// The capital sharp s (U+1E9E) used to key as "ß"; it keys as "ss" now. Existing keys move, unless the
// new key is someone else's (or would be): then the row keeps its old key and goes on working.
let orm: Orm;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ orm, drop } = await databaseAtMigration("Migration20261124033427_audit_events"));
});
afterAll(() => drop());

test("keys holding the old capital-sharp-s form move to the new one; one that would collide stays", async () => {
  const conn = orm.em.getConnection();
  // [username, its key as the old identityKey wrote it, e-mail, its old key]
  const users: [string, string, string, string][] = [
    ["GROẞMANN", "großmann", "GROẞMANN@tum.de", "großmann@tum.de"],
    ["Maẞ", "maß", "mass.one@tum.de", "mass.one@tum.de"],
    ["Mass", "mass", "mass.two@tum.de", "mass.two@tum.de"], // the key Maẞ would take
    ["张伟", "张伟", "zhangwei@sjtu.edu.cn", "zhangwei@sjtu.edu.cn"],
  ];
  for (const [username, key, email, emailKey] of users) {
    await conn.execute(
      `insert into users (id, username, username_lower, email, email_lower, role) values (gen_random_uuid(), ?, ?, ?, ?, 'user')`,
      [username, key, email, emailKey],
    );
  }
  await orm.migrator.up();
  const rows = await conn.execute<{ username: string; username_lower: string; email_lower: string }[]>(
    "select username, username_lower, email_lower from users order by username",
  );
  const keyOf = Object.fromEntries(rows.map((r) => [r.username, r]));
  expect(rows).toHaveLength(users.length);
  // Moved: what a login typing the name, in any case, now looks up.
  expect(keyOf.GROẞMANN.username_lower).toBe(identityKey("Großmann"));
  expect(keyOf.GROẞMANN.email_lower).toBe(identityKey("großmann@TUM.de"));
  // Kept: "mass" is Mass's.
  expect(keyOf.Maẞ.username_lower).toBe("maß");
  expect(keyOf.Mass.username_lower).toBe("mass");
  expect(keyOf.张伟.username_lower).toBe("张伟");
});
