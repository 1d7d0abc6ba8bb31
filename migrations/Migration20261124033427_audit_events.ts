import { Migration } from "@mikro-orm/migrations";

export class Migration20261124033427_audit_events extends Migration {
  override name = "Migration20261124033427_audit_events";

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_events" ("id" uuid not null, "created_at" timestamptz not null default now(), "actor_id" uuid null, "actor_username" varchar(255) null, "ip" varchar(64) null, "action" varchar(64) not null, "target_type" varchar(32) not null, "target_id" uuid not null, "domain_id" uuid null, "changes" jsonb not null default '{}', primary key ("id"));`,
    );
    this.addSql(`create index "audit_events_domain_index" on "audit_events" ("domain_id", "created_at", "id");`);
    this.addSql(
      `create index "audit_events_domain_action_index" on "audit_events" ("domain_id", "action", "created_at", "id");`,
    );
    this.addSql(`create index "audit_events_actor_index" on "audit_events" ("actor_id", "created_at", "id");`);
    this.addSql(`create index "audit_events_created_index" on "audit_events" ("created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_events" cascade;`);
  }
}
