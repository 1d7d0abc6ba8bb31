import { Migration } from "@mikro-orm/migrations";

export class Migration20261121205616_problems_configs_blobs extends Migration {
  override name = "Migration20261121205616_problems_configs_blobs";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "blobs" ("digest" varchar(64) not null, "size" bigint not null, "created_at" timestamptz not null default now(), primary key ("digest"));`,
    );

    this.addSql(
      `create table "problem_groups" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), primary key ("id"));`,
    );

    this.addSql(
      `create table "problems" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "url" varchar(256) not null, "title" varchar(512) not null, "content" text not null default '', "hidden" boolean not null default false, "num_submit" int not null default 0, "num_accept" int not null default 0, "languages" jsonb not null default '[]', "owner_id" uuid null, "problem_group_id" uuid null, primary key ("id"));`,
    );
    this.addSql(`create index "problems_owner_index" on "problems" ("owner_id");`);
    this.addSql(`create index "problems_problem_group_index" on "problems" ("problem_group_id");`);
    this.addSql(`alter table "problems" add constraint "problems_domain_url_unique" unique ("domain_id", "url");`);

    this.addSql(
      `create table "problem_configs" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "problem_id" uuid null, "committer_id" uuid null, "version" int not null, "commit_id" varchar(64) not null, "commit_message" text not null default '', "data_version" int not null default 2, primary key ("id"));`,
    );
    this.addSql(
      `alter table "problem_configs" add constraint "problem_configs_problem_version_unique" unique ("problem_id", "version");`,
    );

    this.addSql(
      `create table "problem_config_files" ("id" uuid not null, "config_id" uuid not null, "path" varchar(1024) not null, "digest" varchar(64) not null, "size" bigint not null, primary key ("id"));`,
    );
    this.addSql(`create index "problem_config_files_digest_index" on "problem_config_files" ("digest");`);
    this.addSql(
      `alter table "problem_config_files" add constraint "problem_config_files_config_path_unique" unique ("config_id", "path");`,
    );

    this.addSql(
      `alter table "problems" add constraint "problems_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete restrict;`,
    );
    this.addSql(
      `alter table "problems" add constraint "problems_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "problems" add constraint "problems_problem_group_id_foreign" foreign key ("problem_group_id") references "problem_groups" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "problem_configs" add constraint "problem_configs_problem_id_foreign" foreign key ("problem_id") references "problems" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "problem_configs" add constraint "problem_configs_committer_id_foreign" foreign key ("committer_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "problem_config_files" add constraint "problem_config_files_config_id_foreign" foreign key ("config_id") references "problem_configs" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "problems" drop constraint "problems_problem_group_id_foreign";`);
    this.addSql(`alter table "problem_configs" drop constraint "problem_configs_problem_id_foreign";`);
    this.addSql(`alter table "problem_config_files" drop constraint "problem_config_files_config_id_foreign";`);

    this.addSql(`drop table if exists "blobs" cascade;`);
    this.addSql(`drop table if exists "problem_groups" cascade;`);
    this.addSql(`drop table if exists "problems" cascade;`);
    this.addSql(`drop table if exists "problem_configs" cascade;`);
    this.addSql(`drop table if exists "problem_config_files" cascade;`);
  }
}
