import { Migration } from "@mikro-orm/migrations";

/**
 * A problem set's clarifications (docs/contests.md "Clarifications"): participants' questions, the jury's
 * answers (to the asker or to all) and announcements, one row per message.
 */
export class Migration20261128183259_clarifications extends Migration {
  override name = "Migration20261128183259_clarifications";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "clarifications" ("id" uuid not null, "created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), "domain_id" uuid not null, "problem_set_id" uuid not null, ` +
        `"problem_id" uuid null, "kind" varchar(16) not null, "author_id" uuid null, "reply_to_id" uuid null, ` +
        `"recipient_id" uuid null, "public" boolean not null default false, "text" text not null, primary key ("id"));`,
    );
    this.addSql(`create index "clarifications_domain_index" on "clarifications" ("domain_id");`);
    this.addSql(`create index "clarifications_problem_index" on "clarifications" ("problem_id");`);
    this.addSql(`create index "clarifications_author_index" on "clarifications" ("author_id");`);
    this.addSql(`create index "clarifications_reply_index" on "clarifications" ("reply_to_id");`);
    this.addSql(`create index "clarifications_recipient_index" on "clarifications" ("recipient_id");`);
    this.addSql(
      `create index "clarifications_set_created_index" on "clarifications" ("problem_set_id", "created_at");`,
    );

    this.addSql(
      `alter table "clarifications" add constraint "clarifications_domain_id_foreign" foreign key ("domain_id") ` +
        `references "domains" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "clarifications" add constraint "clarifications_problem_set_id_foreign" foreign key ` +
        `("problem_set_id") references "problem_sets" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "clarifications" add constraint "clarifications_problem_id_foreign" foreign key ("problem_id") ` +
        `references "problems" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "clarifications" add constraint "clarifications_author_id_foreign" foreign key ("author_id") ` +
        `references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "clarifications" add constraint "clarifications_reply_to_id_foreign" foreign key ("reply_to_id") ` +
        `references "clarifications" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "clarifications" add constraint "clarifications_recipient_id_foreign" foreign key ` +
        `("recipient_id") references "users" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "clarifications" drop constraint "clarifications_reply_to_id_foreign";`);
    this.addSql(`drop table if exists "clarifications" cascade;`);
  }
}
