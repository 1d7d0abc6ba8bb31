import { Migration } from "@mikro-orm/migrations";

export class Migration20261126112230_package_notes_attachments extends Migration {
  override name = "Migration20261126112230_package_notes_attachments";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "problem_attachments" ("id" uuid not null, "created_at" timestamptz not null default now(), "problem_id" uuid not null, "name" varchar(255) not null, "digest" varchar(64) not null, "size" int not null, primary key ("id"));`,
    );
    this.addSql(`create index "problem_attachments_digest_index" on "problem_attachments" ("digest");`);
    this.addSql(
      `alter table "problem_attachments" add constraint "problem_attachments_problem_name_unique" unique ("problem_id", "name");`,
    );

    this.addSql(
      `alter table "package_verifications" add "notes" jsonb not null default '[]', add "full_score" int not null default 0, add "case_paths" jsonb not null default '[]';`,
    );

    this.addSql(
      `alter table "problem_attachments" add constraint "problem_attachments_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "problem_attachments" cascade;`);

    this.addSql(
      `alter table "package_verifications" drop column "notes", drop column "full_score", drop column "case_paths";`,
    );
  }
}
