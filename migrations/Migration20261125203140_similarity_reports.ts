import { Migration } from "@mikro-orm/migrations";

export class Migration20261125203140_similarity_reports extends Migration {
  override name = "Migration20261125203140_similarity_reports";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "similarity_reports" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "problem_id" uuid not null, "requested_by_id" uuid null, "state" varchar(16) not null, "reason" text null, "options" jsonb not null, "started_at" timestamptz null, "finished_at" timestamptz null, "submissions" jsonb not null default '[]', "pairs" jsonb not null default '[]', primary key ("id"));`,
    );
    this.addSql(`create index "similarity_reports_domain_index" on "similarity_reports" ("domain_id");`);
    this.addSql(
      `alter table "similarity_reports" add constraint "similarity_reports_problem_unique" unique ("problem_id");`,
    );

    this.addSql(
      `alter table "similarity_reports" add constraint "similarity_reports_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "similarity_reports" add constraint "similarity_reports_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "similarity_reports" add constraint "similarity_reports_requested_by_id_foreign" foreign key ("requested_by_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "similarity_reports" cascade;`);
  }
}
