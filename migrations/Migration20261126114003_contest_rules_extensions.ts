import { Migration } from "@mikro-orm/migrations";

export class Migration20261126114003_contest_rules_extensions extends Migration {
  override name = "Migration20261126114003_contest_rules_extensions";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "problem_set_extensions" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "problem_set_id" uuid not null, "user_id" uuid not null, "due_at" timestamptz null, "lock_at" timestamptz null, "granted_by_id" uuid null, primary key ("id"));`,
    );
    this.addSql(`create index "problem_set_extensions_user_index" on "problem_set_extensions" ("user_id");`);
    this.addSql(`create index "problem_set_extensions_granted_index" on "problem_set_extensions" ("granted_by_id");`);
    this.addSql(
      `alter table "problem_set_extensions" add constraint "problem_set_extensions_set_user_unique" unique ("problem_set_id", "user_id");`,
    );

    this.addSql(
      `alter table "problem_sets" add "penalty_minutes" int not null default 20, add "penalty_verdicts" jsonb null, add "freeze_at" timestamptz null, add "unfrozen_at" timestamptz null, add "late_penalty" jsonb not null default '[]';`,
    );

    this.addSql(
      `alter table "problem_set_extensions" add constraint "problem_set_extensions_problem_set_id_foreign" foreign key ("problem_set_id") references "problem_sets" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "problem_set_extensions" add constraint "problem_set_extensions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "problem_set_extensions" add constraint "problem_set_extensions_granted_by_id_foreign" foreign key ("granted_by_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "problem_set_extensions" cascade;`);

    this.addSql(
      `alter table "problem_sets" drop column "penalty_minutes", drop column "penalty_verdicts", drop column "freeze_at", drop column "unfrozen_at", drop column "late_penalty";`,
    );
  }
}
