import { Migration } from "@mikro-orm/migrations";

export class Migration20261121222315_oauth_accounts extends Migration {
  override name = "Migration20261121222315_oauth_accounts";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "user_oauth_accounts" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "oauth_name" varchar(32) not null, "account_id" varchar(255) not null, "account_name" varchar(255) not null, "account_email" varchar(320) not null, "user_id" uuid not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "user_oauth_accounts" add constraint "user_oauth_accounts_account_unique" unique ("oauth_name", "account_id");`,
    );
    this.addSql(
      `alter table "user_oauth_accounts" add constraint "user_oauth_accounts_user_unique" unique ("user_id", "oauth_name");`,
    );

    this.addSql(
      `alter table "user_oauth_accounts" add constraint "user_oauth_accounts_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_oauth_accounts" cascade;`);
  }
}
