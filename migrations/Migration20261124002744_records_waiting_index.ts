import { Migration } from "@mikro-orm/migrations";

export class Migration20261124002744_records_waiting_index extends Migration {
  override name = "Migration20261124002744_records_waiting_index";

  override up(): void | Promise<void> {
    this.addSql(`create index "records_waiting_index" on "records" ("state", "updated_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "records_waiting_index";`);
  }
}
