import { Migration } from "@mikro-orm/migrations";

export class Migration20261124030030_records_history_and_priority extends Migration {
  override name = "Migration20261124030030_records_history_and_priority";

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "records" add "history" jsonb not null default '[]', add "priority" int not null default 0;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "records" drop column "history", drop column "priority";`);
  }
}
