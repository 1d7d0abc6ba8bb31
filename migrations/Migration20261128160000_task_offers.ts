import { Migration } from "@mikro-orm/migrations";

/**
 * A task handed out by next_task is marked in its row (until when it is kept from other judgers), so that
 * two API processes, or two requests of one, never hand the same task to two judge loops.
 */
export class Migration20261128160000_task_offers extends Migration {
  override name = "Migration20261128160000_task_offers";

  override up(): void | Promise<void> {
    this.addSql(`alter table "records" add "offered_until" timestamptz null;`);
    this.addSql(`alter table "runs" add "offered_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "records" drop column "offered_until";`);
    this.addSql(`alter table "runs" drop column "offered_until";`);
  }
}
