import { Migration } from "@mikro-orm/migrations";

/**
 * When staff declared a set's results final (POST …/scoreboard/finalize): the Contest API's `finalized`, which
 * the resolver needs while the board is still frozen.
 */
export class Migration20261128182126_problem_set_finalized extends Migration {
  override name = "Migration20261128182126_problem_set_finalized";

  override up(): void | Promise<void> {
    this.addSql(`alter table "problem_sets" add "finalized_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "problem_sets" drop column "finalized_at";`);
  }
}
