import { Migration } from "@mikro-orm/migrations";

export class Migration20261126124518_runs extends Migration {
  override name = "Migration20261126124518_runs";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "runs" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "problem_id" uuid not null, "problem_set_id" uuid null, "owner_id" uuid not null, "judger_id" uuid null, "language" varchar(256) not null, "mode" varchar(8) not null, "state" varchar(8) not null default 'queued', "task_id" uuid null, "attempts" int not null default 0, "lease_expires_at" timestamptz null, "priority" int not null default 0, "judged_at" timestamptz null, "expires_at" timestamptz not null, "sources" jsonb not null default '[]', "cases" jsonb not null default '[]', primary key ("id"));`,
    );
    this.addSql(`create index "runs_problem_index" on "runs" ("problem_id");`);
    this.addSql(`create index "runs_owner_state_index" on "runs" ("owner_id", "state");`);
    this.addSql(`create index "runs_state_index" on "runs" ("state", "lease_expires_at");`);
    this.addSql(`create index "runs_expires_index" on "runs" ("expires_at");`);

    this.addSql(
      `create table "run_files" ("id" uuid not null, "run_id" uuid not null, "kind" varchar(8) not null, "path" varchar(1024) not null, "digest" varchar(64) not null, "size" bigint not null, primary key ("id"));`,
    );
    this.addSql(`create index "run_files_digest_index" on "run_files" ("digest");`);
    this.addSql(
      `alter table "run_files" add constraint "run_files_run_kind_path_unique" unique ("run_id", "kind", "path");`,
    );

    this.addSql(`alter table "problem_sets" add "runs_allowed" boolean not null default true;`);

    this.addSql(
      `alter table "runs" add constraint "runs_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "runs" add constraint "runs_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "runs" add constraint "runs_problem_set_id_foreign" foreign key ("problem_set_id") references "problem_sets" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "runs" add constraint "runs_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "runs" add constraint "runs_judger_id_foreign" foreign key ("judger_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "run_files" add constraint "run_files_run_id_foreign" foreign key ("run_id") references "runs" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "run_files" drop constraint "run_files_run_id_foreign";`);

    this.addSql(`drop table if exists "runs" cascade;`);
    this.addSql(`drop table if exists "run_files" cascade;`);

    this.addSql(`alter table "problem_sets" drop column "runs_allowed";`);
  }
}
