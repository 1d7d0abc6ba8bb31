import { Migration } from "@mikro-orm/migrations";

export class Migration20261121204712_domains_members_roles_invitations extends Migration {
  override name = "Migration20261121204712_domains_members_roles_invitations";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "domains" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "url" varchar(256) not null, "name" varchar(256) not null, "gravatar" varchar(256) not null default '', "bulletin" text not null default '', "hidden" boolean not null default true, "group" varchar(256) not null default '', "tag" varchar(256) null, "owner_id" uuid null, primary key ("id"));`,
    );
    this.addSql(`alter table "domains" add constraint "domains_url_unique" unique ("url");`);
    this.addSql(`create index "domains_name_index" on "domains" ("name");`);
    this.addSql(`create index "domains_group_index" on "domains" ("group");`);
    this.addSql(`create index "domains_owner_index" on "domains" ("owner_id");`);

    this.addSql(
      `create table "domain_users" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "user_id" uuid not null, "role" varchar(256) not null, primary key ("id"));`,
    );
    this.addSql(`create index "domain_users_user_index" on "domain_users" ("user_id");`);
    this.addSql(
      `alter table "domain_users" add constraint "domain_users_domain_user_unique" unique ("domain_id", "user_id");`,
    );

    this.addSql(
      `create table "domain_roles" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "role" varchar(256) not null, "permission" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "domain_roles" add constraint "domain_roles_domain_role_unique" unique ("domain_id", "role");`,
    );

    this.addSql(
      `create table "domain_invitations" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "domain_id" uuid not null, "url" varchar(256) not null, "code" varchar(256) not null, "expire_at" timestamptz null, "role" varchar(256) not null default 'user', primary key ("id"));`,
    );
    this.addSql(
      `alter table "domain_invitations" add constraint "domain_invitations_domain_url_unique" unique ("domain_id", "url");`,
    );
    this.addSql(
      `alter table "domain_invitations" add constraint "domain_invitations_domain_code_unique" unique ("domain_id", "code");`,
    );

    this.addSql(
      `alter table "domains" add constraint "domains_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "domain_users" add constraint "domain_users_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "domain_users" add constraint "domain_users_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "domain_roles" add constraint "domain_roles_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "domain_invitations" add constraint "domain_invitations_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "domain_users" drop constraint "domain_users_domain_id_foreign";`);
    this.addSql(`alter table "domain_roles" drop constraint "domain_roles_domain_id_foreign";`);
    this.addSql(`alter table "domain_invitations" drop constraint "domain_invitations_domain_id_foreign";`);

    this.addSql(`drop table if exists "domains" cascade;`);
    this.addSql(`drop table if exists "domain_users" cascade;`);
    this.addSql(`drop table if exists "domain_roles" cascade;`);
    this.addSql(`drop table if exists "domain_invitations" cascade;`);
  }
}
