import { Migration } from "@mikro-orm/migrations";

export class Migration20261121203343_users_and_access_keys extends Migration {
  override name = "Migration20261121203343_users_and_access_keys";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "users" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "username" varchar(255) not null, "username_lower" varchar(255) not null, "email" varchar(320) not null, "email_lower" varchar(320) not null, "gravatar" varchar(512) not null default '', "role" text not null default 'user', "is_active" boolean not null default true, "student_id" varchar(255) not null default '', "real_name" varchar(255) not null default '', "register_ip" varchar(64) not null default '127.0.0.1', "login_at" timestamptz not null default now(), "login_ip" varchar(64) not null default '127.0.0.1', "hashed_password" text not null default '', primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_username_lower_unique" unique ("username_lower");`);
    this.addSql(`alter table "users" add constraint "users_email_lower_unique" unique ("email_lower");`);
    this.addSql(`create index "users_role_index" on "users" ("role");`);
    this.addSql(
      `alter table "users" add constraint "users_role_check" check ("role" in ('root', 'admin', 'user', 'judger'));`,
    );

    this.addSql(
      `create table "access_keys" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "key_id" varchar(64) not null, "secret_digest" varchar(64) not null, "user_id" uuid not null, "last_used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "access_keys" add constraint "access_keys_key_id_unique" unique ("key_id");`);
    this.addSql(`create index "access_keys_user_index" on "access_keys" ("user_id");`);

    this.addSql(
      `alter table "access_keys" add constraint "access_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }
}
