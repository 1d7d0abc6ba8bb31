import { Migration } from "@mikro-orm/migrations";

export class Migration20261124005927_records_list_indexes extends Migration {
  override name = "Migration20261124005927_records_list_indexes";

  override up(): void | Promise<void> {
    this.addSql(`create index "records_domain_problem_index" on "records" ("domain_id", "problem_id", "created_at");`);
    this.addSql(
      `create index "records_domain_committer_index" on "records" ("domain_id", "committer_id", "created_at");`,
    );
    this.addSql(
      `create index "records_domain_problem_set_index" on "records" ("domain_id", "problem_set_id", "created_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "records_domain_problem_index";`);
    this.addSql(`drop index "records_domain_committer_index";`);
    this.addSql(`drop index "records_domain_problem_set_index";`);
  }
}
