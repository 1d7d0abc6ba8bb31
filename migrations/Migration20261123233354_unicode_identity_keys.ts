import { Migration } from "@mikro-orm/migrations";
import { identityKey } from "../src/modules/identity/credentials/names";

export class Migration20261123233354_unicode_identity_keys extends Migration {
  override name = "Migration20261123233354_unicode_identity_keys";

  override async up(): Promise<void> {
    // execute(), not addSql(): these run now, in order, inside the migration's transaction.
    await this.execute(`alter table "users" alter column "email_lower" type text using ("email_lower"::text);`);
    await this.execute(`alter table "users" alter column "username_lower" type text using ("username_lower"::text);`);
    // Keys were plain lower-case; they are now NFKC + case-folded (src/auth/names.ts). Recomputed here in
    // JavaScript, since PostgreSQL's lower() depends on the database collation. A row whose new key would
    // collide with another's keeps its old key: both accounts go on working, and nothing new may take it.
    const rows = await this.execute(
      `select "id", "username", "email", "username_lower", "email_lower" from "users" order by "created_at", "id"`,
    );
    const taken = { username: new Set<string>(), email: new Set<string>() };
    for (const row of rows) {
      taken.username.add(String(row.username_lower));
      taken.email.add(String(row.email_lower));
    }
    for (const row of rows) {
      const username = identityKey(String(row.username));
      const email = identityKey(String(row.email));
      const nextUsername =
        username === row.username_lower || taken.username.has(username) ? String(row.username_lower) : username;
      const nextEmail = email === row.email_lower || taken.email.has(email) ? String(row.email_lower) : email;
      if (nextUsername === row.username_lower && nextEmail === row.email_lower) continue;
      taken.username.add(nextUsername);
      taken.email.add(nextEmail);
      await this.execute(`update "users" set "username_lower" = ?, "email_lower" = ? where "id" = ?`, [
        nextUsername,
        nextEmail,
        row.id,
      ]);
    }
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "users" alter column "username_lower" type varchar(255) using ("username_lower"::varchar(255));`,
    );
    this.addSql(
      `alter table "users" alter column "email_lower" type varchar(320) using ("email_lower"::varchar(320));`,
    );
  }
}
