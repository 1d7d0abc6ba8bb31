import { Migration } from "@mikro-orm/migrations";

export class Migration20261121211453_problem_sets extends Migration {
  override name = "Migration20261121211453_problem_sets";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "problem_sets" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "url" varchar(256) not null, "title" varchar(256) not null, "content" text not null default '', "hidden" boolean not null default false, "scoreboard_hidden" boolean not null default false, "unlock_at" timestamptz null, "due_at" timestamptz null, "lock_at" timestamptz null, "num_submit" int not null default 0, "num_accept" int not null default 0, "owner_id" uuid null, primary key ("id"));`,
    );
    this.addSql(`create index "problem_sets_owner_index" on "problem_sets" ("owner_id");`);
    this.addSql(
      `alter table "problem_sets" add constraint "problem_sets_domain_url_unique" unique ("domain_id", "url");`,
    );

    this.addSql(
      `create table "problem_set_problems" ("id" uuid not null, "problem_set_id" uuid not null, "problem_id" uuid not null, "position" int not null, primary key ("id"));`,
    );
    this.addSql(`create index "problem_set_problems_problem_index" on "problem_set_problems" ("problem_id");`);
    this.addSql(
      `alter table "problem_set_problems" add constraint "problem_set_problems_set_problem_unique" unique ("problem_set_id", "problem_id");`,
    );

    this.addSql(
      `alter table "problem_sets" add constraint "problem_sets_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "problem_sets" add constraint "problem_sets_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "problem_set_problems" add constraint "problem_set_problems_problem_set_id_foreign" foreign key ("problem_set_id") references "problem_sets" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "problem_set_problems" add constraint "problem_set_problems_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "problem_set_problems" drop constraint "problem_set_problems_problem_set_id_foreign";`);

    this.addSql(`drop table if exists "problem_sets" cascade;`);
    this.addSql(`drop table if exists "problem_set_problems" cascade;`);
  }
}
