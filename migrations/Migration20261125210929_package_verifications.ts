import { Migration } from "@mikro-orm/migrations";

export class Migration20261125210929_package_verifications extends Migration {
  override name = "Migration20261125210929_package_verifications";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "package_verifications" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "problem_id" uuid not null, "format" varchar(16) not null, "submissions" jsonb not null default '[]', primary key ("id"));`,
    );
    this.addSql(
      `alter table "package_verifications" add constraint "package_verifications_problem_unique" unique ("problem_id");`,
    );

    this.addSql(
      `alter table "package_verifications" add constraint "package_verifications_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "package_verifications" cascade;`);
  }
}
