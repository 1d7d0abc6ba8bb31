import { Migration } from "@mikro-orm/migrations";

export class Migration20261121213326_records extends Migration {
  override name = "Migration20261121213326_records";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "records" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "problem_set_id" uuid null, "problem_id" uuid null, "config_id" uuid null, "committer_id" uuid null, "judger_id" uuid null, "state" varchar(16) not null default 'processing', "language" varchar(256) not null, "score" int not null default 0, "time_ms" int not null default 0, "memory_kb" int not null default 0, "judged_at" timestamptz null, "commit_id" varchar(64) null, "task_id" uuid null, "attempts" int not null default 0, "lease_expires_at" timestamptz null, "late" boolean not null default false, "cases" jsonb not null default '[]', primary key ("id"));`,
    );
    this.addSql(`create index "records_config_index" on "records" ("config_id");`);
    this.addSql(`create index "records_judger_index" on "records" ("judger_id");`);
    this.addSql(`create index "records_domain_created_index" on "records" ("domain_id", "created_at");`);
    this.addSql(
      `create index "records_latest_index" on "records" ("committer_id", "problem_id", "problem_set_id", "created_at");`,
    );
    this.addSql(`create index "records_problem_set_index" on "records" ("problem_set_id", "created_at");`);
    this.addSql(`create index "records_state_index" on "records" ("state", "lease_expires_at");`);

    this.addSql(
      `create table "record_files" ("id" uuid not null, "record_id" uuid not null, "path" varchar(1024) not null, "digest" varchar(64) not null, "size" bigint not null, primary key ("id"));`,
    );
    this.addSql(`create index "record_files_digest_index" on "record_files" ("digest");`);
    this.addSql(
      `alter table "record_files" add constraint "record_files_record_path_unique" unique ("record_id", "path");`,
    );

    this.addSql(`alter table "problem_sets" add "scoreboard_rule" varchar(8) not null default 'best';`);

    this.addSql(
      `alter table "records" add constraint "records_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "records" add constraint "records_problem_set_id_foreign" foreign key ("problem_set_id") references "problem_sets" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "records" add constraint "records_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "records" add constraint "records_config_id_foreign" foreign key ("config_id") references "problem_configs" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "records" add constraint "records_committer_id_foreign" foreign key ("committer_id") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "records" add constraint "records_judger_id_foreign" foreign key ("judger_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "record_files" add constraint "record_files_record_id_foreign" foreign key ("record_id") references "records" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "record_files" drop constraint "record_files_record_id_foreign";`);

    this.addSql(`drop table if exists "records" cascade;`);
    this.addSql(`drop table if exists "record_files" cascade;`);

    this.addSql(`alter table "problem_sets" drop column "scoreboard_rule";`);
  }
}
